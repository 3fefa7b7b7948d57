"""`gui-train`: train a policy on a GUI env with GRPO, PAGE or BEPA.

    gui-train --algo page --config runs/page.toml
    gui-train --algo bepa --env GUI/LocalWeb-v0 --policy element --env-arg apps='["admin"]' \\
        --set tasks='["admin.invite-user"]' --set episode_budget=200 --run-dir runs/bepa
    gui-train --algo grpo --policy vlm --policy-arg model_path=/models/UI-TARS-1.5-7B \\
        --policy-arg lora='{"r": 16}' --policy-arg device=cuda --config runs/grpo.json
    gui-train --algo page --config runs/page.toml --print-config     # show the settings, run nothing
    gui-train --algo grpo --ray 10.0.0.1:6379 --set pool_size=32 ...  # the pool's envs as Ray actors
    gui-train --algo grpo --async-rollouts --set pool_size=16 --set groups_per_iteration=4 ...  # no lockstep waves

Values of ``--set``, ``--env-arg`` and ``--policy-arg`` are read as JSON when they are JSON.
``--policy`` takes what ``gui-bench run --agent`` takes (a name, ``module:Class``, a file),
as long as the agent is trainable; the env is made as the agent needs it (the element
policy's a11y tree, the VLM policy's action format), as gui-bench makes it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable

from gui_gym.agents.loader import SPEC_HELP, TRAINABLE_AGENTS, env_kwargs_for, load_trainable_agent
from gui_gym.errors import GUIGymError
from gui_gym.registration import DEFAULT_ENV_ID, make, parse_kwargs
from gui_gym.trainers import metrics
from gui_gym.trainers.config import CONFIGS, RunSpec, build_spec, read_config_file
from gui_gym.trainers.runs import to_plain


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(prog="gui-train", description="Train a GUI policy with GRPO, PAGE or BEPA.")
    out.add_argument("--algo", choices=sorted(CONFIGS), help="the method (or 'algo' in the config file)")
    out.add_argument("--env", help=f"env id (default {DEFAULT_ENV_ID})")
    out.add_argument("--policy", help=f"the trainable agent, as gui-bench run --agent takes it: {SPEC_HELP}; "
                     f"trainable built-ins: {', '.join(TRAINABLE_AGENTS)} (default element)")
    out.add_argument("--config", help="a .json or .toml file (see trainers/config.py)")
    out.add_argument("--set", action="append", metavar="K=V", help="trainer setting, repeatable")
    out.add_argument("--env-arg", action="append", metavar="K=V", help="gym.make keyword argument, repeatable")
    out.add_argument("--policy-arg", action="append", metavar="K=V", help="policy constructor argument, repeatable")
    out.add_argument("--run-dir", help="where metrics and checkpoints go (the trainer's run_dir)")
    out.add_argument("--print-config", action="store_true", help="print the resolved settings and exit")
    out.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                     help="run the rollout envs as Ray actors (gui_gym.remote) on the cluster at ADDRESS (without "
                          "one, Ray's default: RAY_ADDRESS or the cluster on this machine)")
    out.add_argument("--async-rollouts", action="store_true",
                     help="asynchronous rollouts: each episode advances on its own and a group goes to the learner "
                          "as soon as its G episodes are done (the trainer's async_rollouts)")
    out.add_argument("--env-resources", type=json.loads, default={}, metavar="JSON",
                     help='with --ray, what each env actor asks for: RemoteOptions fields, e.g. \'{"num_cpus": 1, '
                          '"resources": {"osworld_vm": 1}}\'')
    return out


def resolve(args: argparse.Namespace) -> RunSpec:
    values = read_config_file(args.config) if args.config else {}
    trainer = parse_kwargs(args.set, "--set")
    if args.run_dir:
        trainer["run_dir"] = args.run_dir
    if args.async_rollouts:
        trainer["async_rollouts"] = True
    spec = build_spec(values, algo=args.algo, env=args.env, policy=args.policy,
                      env_args=parse_kwargs(args.env_arg, "--env-arg"),
                      policy_args=parse_kwargs(args.policy_arg, "--policy-arg"), trainer=trainer)
    return spec


def env_factory(spec: RunSpec, policy: Any, ray_address: str | None = None,
                remote: dict[str, Any] | None = None) -> Callable[[], Any]:
    """Envs made as the policy needs them (`gui_gym.agents.loader.env_kwargs_for`: its action format
    and coordinate space, the a11y tree), as gui-bench makes them for an agent; with a
    `ray_address` ("" for Ray's default) each env is a `gui_gym.remote.RemoteEnv` in an actor
    (`remote`: its `RemoteOptions`), which the pool and the trainers use as any env; a
    method's wrappers (PAGE's) go into the actor (`gui_gym.trainers.rollout.make_wrapped`)."""
    env_args = dict(spec.env_args)
    for name, value in env_kwargs_for(policy).items():
        env_args.setdefault(name, value)
    if ray_address is None:
        return lambda: make(spec.env, env_args)
    from gui_gym.remote import RemoteEnv, RemoteOptions, connect

    options = RemoteOptions(**{"address": ray_address or None, **(remote or {})})
    connect(options.address)
    return lambda wrap=None: RemoteEnv(spec.env, env_args, options, wrap)


def method(algo: str) -> Callable[..., list[dict[str, Any]]]:
    """The training function of `algo`: ``train(config, policy, make_env) -> records``."""
    from gui_gym.trainers import bepa, grpo, page

    return {"grpo": grpo.train, "page": page.train, "bepa": bepa.train}[algo]


def train(spec: RunSpec, ray_address: str | None = None, remote: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Build the policy and run the method (on Ray actors' envs with a `ray_address`). The seed
    is set before the policy is built, so that its random starting weights are the seed's too
    and a run repeats."""
    from gui_gym.trainers.grpo import seed_everything

    seed_everything(spec.trainer.seed)
    policy = load_trainable_agent(spec.policy, **spec.policy_args)
    return method(spec.algo)(spec.trainer, policy, env_factory(spec, policy, ray_address, remote))


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        spec = resolve(args)
        if args.print_config:
            print(json.dumps(to_plain(spec), indent=2, sort_keys=True))
            return 0
        records = train(spec, args.ray, args.env_resources)
    except (GUIGymError, ValueError, FileNotFoundError) as exc:
        print(f"gui-train: error: {exc}", file=sys.stderr)
        return 2
    last = next((r for r in reversed(records) if metrics.SUCCESS_RATE in r), {})
    print(f"gui-train: {spec.algo} done: {len(records)} record(s), {last.get(metrics.EPISODES, 0)} episodes, "
          f"last success rate {last.get(metrics.SUCCESS_RATE, float('nan')):.2f}"
          + (f", progress {last[metrics.PROGRESS]:.2f}" if metrics.PROGRESS in last else "")
          + (f"; metrics in {spec.trainer.run_dir}/metrics.jsonl" if spec.trainer.run_dir else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
