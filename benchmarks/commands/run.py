"""``gui-bench run``: an agent on an env, every episode recorded, resumable after any
interruption (``--resume`` runs exactly what is missing)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from gui_gym.benchmarks.harness.results import RESULTS_ROOT, latest_run, slug
from gui_gym.benchmarks.harness.summary import finalize
from gui_gym.benchmarks.harness.summary import print_summary as _print_summary
from gui_gym.benchmarks.harness.task_selection import select_tasks
from gui_gym.errors import HarnessError
from gui_gym.registration import DEFAULT_ENV_ID
from gui_gym.registration import make as make_env
from gui_gym.registration import parse_kwargs as parse_assignments

DEFAULT_AGENT = "oracle"
HELP = "run an agent on an env, recording every episode; resumable after any interruption"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", help=f"env id (default {DEFAULT_ENV_ID})")
    parser.add_argument("--env-arg", action="append", metavar="K=V", help="env keyword argument, repeatable (values parse as JSON when they can)")
    parser.add_argument("--agent", help=f"the agent: a name (random, oracle, replay, openai, element, vlm), 'module:Class' or 'file.py[:Class]' (default {DEFAULT_AGENT})")
    parser.add_argument("--agent-arg", action="append", metavar="K=V", help="agent constructor argument, repeatable")
    parser.add_argument("--tasks", action="append", metavar="SPEC", help="task ids, a file of ids, or field:value filters such as domain:shop; comma-separated or repeated")
    parser.add_argument("--limit", type=int, help="run at most this many tasks")
    parser.add_argument("--seed", type=int, help="instance seed of every task (default 0)")
    parser.add_argument("--repeats", type=int, help="instances per task, with seeds seed .. seed+repeats-1 (default 1)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (Ray actors with --ray), each with its own env (default 1)")
    parser.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help="run the workers as Ray actors on the cluster at ADDRESS (host:port of its head; without one, Ray's default: RAY_ADDRESS or the cluster on this machine)")
    parser.add_argument("--worker-cpus", type=float, default=1.0, help="with --ray, CPUs each worker actor reserves (default 1)")
    parser.add_argument("--worker-resources", type=json.loads, default={}, metavar="JSON", help='with --ray, custom resources each worker actor needs, e.g. \'{"osworld_vm": 1}\'')
    parser.add_argument("--max-steps", type=int, help="step limit per episode (default: each task's own)")
    parser.add_argument("--episode-timeout", type=float, default=600.0, help="wall-clock limit per episode in seconds (default 600)")
    parser.add_argument("--retries", type=int, default=1, help="reruns of an episode that ends in an error (default 1)")
    parser.add_argument("--screenshot-format", choices=("webp", "png"), default="webp",
                        help="how screenshots are stored: lossless WebP (default, a third of the size) or PNG")
    parser.add_argument("--out", help="results folder (default results/<env>/<agent>/<time>)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out (default: the latest run of --env/--agent)")
    parser.add_argument("--rerun-errors", action="store_true", help="with --resume, run episodes that ended in an error again")
    osworld = parser.add_argument_group("OSWorld's layout", "an OSWorld run is also written as OSWorld's tools read it, "
                                        "under osworld/<action space>/<observation type>/<model>/ (docs/osworld.md)")
    osworld.add_argument("--osworld-action-space", metavar="NAME", help="default: the env's action format")
    osworld.add_argument("--osworld-observation-type", metavar="NAME",
                         help="default: screenshot, a11y_tree or screenshot_a11y_tree, from what the env observes")
    osworld.add_argument("--osworld-model", metavar="NAME", help="default: the agent's model argument, else its name")


OSWORLD_NAMES = ("osworld_action_space", "osworld_observation_type", "osworld_model")
"""The options that rename an OSWorld run's folders in OSWorld's own layout."""
RUN_SETTINGS = ("tasks", "limit", "seed", "repeats", "max_steps", "env_arg", "agent_arg", *OSWORLD_NAMES)
"""What a resumed run takes from its run.json; giving them again is a mistake we name."""


def _check_resume(args: argparse.Namespace, run: dict[str, Any]) -> None:
    for name, recorded in (("env", run["env_id"]), ("agent", run["agent"])):
        given = getattr(args, name)
        if given is not None and given != recorded:
            raise HarnessError(f"--resume: this folder holds a run of --{name} {recorded!r}, received {given!r}")
    given = [f"--{n.replace('_', '-')}" for n in RUN_SETTINGS if getattr(args, n) is not None]
    if given:
        raise HarnessError(f"--resume takes the run's settings from its run.json; drop {', '.join(given)}")


def run(args: argparse.Namespace) -> int:
    """Exit codes: 0 when the run measured at least one episode (a success or a failure), 1 when
    every episode ended in an error (the run measured nothing), 2 on bad input (nothing is
    written then), 130 when interrupted (every finished episode is kept)."""
    from gui_gym.agents import env_kwargs_for, load_agent
    from gui_gym.benchmarks.harness.osworld_layout import OSWORLD_ENV_IDS, OSWorldLayout
    from gui_gym.benchmarks.harness.outside_layouts import RunLayouts
    from gui_gym.benchmarks.harness.results import Job, ResultsStore
    from gui_gym.benchmarks.harness.runner import Progress, RunConfig, Runner
    from gui_gym.records import json_safe

    if args.resume:
        out = Path(args.out) if args.out else latest_run(args.env or DEFAULT_ENV_ID, args.agent or DEFAULT_AGENT)
        store = ResultsStore(out)
        run = store.read_run(required=("env_id", "env_kwargs", "agent", "agent_kwargs"))
        if run is None:
            raise HarnessError(f"--resume: {out} holds no run.json, so there is no run to continue")
        _check_resume(args, run)
        env_id, env_kwargs, agent_spec, agent_kwargs = run["env_id"], run["env_kwargs"], run["agent"], run["agent_kwargs"]
        jobs = store.jobs_of_run()
    else:
        env_id, agent_spec = args.env or DEFAULT_ENV_ID, args.agent or DEFAULT_AGENT
        seed, repeats = args.seed if args.seed is not None else 0, args.repeats if args.repeats is not None else 1
        if repeats < 1:
            raise HarnessError(f"--repeats must be >= 1, received {repeats}")
        out = Path(args.out) if args.out else (RESULTS_ROOT / slug(env_id) / slug(agent_spec)
                                               / datetime.now().strftime("%Y%m%d-%H%M%S"))
        store = ResultsStore(out)
        if store.read_run() is not None:
            raise HarnessError(f"{out} already holds a run: continue it with --resume, or choose another --out")
        agent_kwargs = parse_assignments(args.agent_arg, "--agent-arg")
        env_kwargs = parse_assignments(args.env_arg, "--env-arg")
        if args.max_steps is not None:
            env_kwargs["max_steps"] = args.max_steps
    config = RunConfig(env_id, out, agent_spec, agent_kwargs, env_kwargs, workers=args.workers,  # checks the numbers
                       episode_timeout_s=args.episode_timeout, retries=args.retries,
                       image_format=args.screenshot_format, ray_address=args.ray or None,
                       worker_cpus=args.worker_cpus, worker_resources=args.worker_resources)
    given = [f"--{n.replace('_', '-')}" for n in OSWORLD_NAMES if getattr(args, n) is not None]
    if given and env_id not in OSWORLD_ENV_IDS:
        raise HarnessError(f"{', '.join(given)}: names an OSWorld run's folders; {env_id} is not OSWorld")
    if not args.resume:
        agent = load_agent(agent_spec, **agent_kwargs)  # fails here, not in every worker
        for name, value in env_kwargs_for(agent).items():
            env_kwargs.setdefault(name, value)
        if callable(getattr(agent, "close", None)):
            agent.close()
    env = make_env(env_id, env_kwargs)
    try:
        suite = env.unwrapped.suite
        if not args.resume:
            ids = select_tasks(env.unwrapped.task_ids, suite.describe, args.tasks, args.limit)
            jobs = [Job(t, seed + r, json_safe(suite.describe(t))) for t in ids for r in range(repeats)]
            run = {"env_id": env_id, "env_kwargs": env_kwargs, "agent": agent_spec, "agent_kwargs": agent_kwargs,
                   "created_at": datetime.now().astimezone().isoformat(),
                   "action_format": env_kwargs.get("action_format"), "jobs": [j.to_dict() for j in jobs]}
            if env_id in OSWORLD_ENV_IDS:
                run["osworld_layout"] = OSWorldLayout.of_run(
                    env, agent_spec, agent_kwargs, repeats > 1, action_space=args.osworld_action_space,
                    observation_type=args.osworld_observation_type, model=args.osworld_model).to_dict()
            store.write_run(run)
        # env_kwargs: the same dict, the agent's settings in
        config = replace(config, layouts=RunLayouts.of_run(run, str(out / "run.json")))
        todo = store.pending(jobs, args.retries, args.rerun_errors)
        todo_keys = {job.key for job in todo}
        previous = store.results([job for job in jobs if job.key not in todo_keys])
        print(f"gui-bench: {env_id} with agent {agent_spec}: {len(todo)} of {len(jobs)} episodes to run "
              f"on {min(args.workers, max(1, len(todo)))} worker(s)\nresults: {out}", flush=True)
        engine = Runner
        if args.ray is not None:
            from gui_gym.benchmarks.harness.ray_runner import RayRunner as engine
        progress = Progress(len(jobs), previous=previous)
        started = time.monotonic()
        try:
            engine(config, todo, on_result=progress.record, on_tick=progress.tick).run()
        except KeyboardInterrupt:
            progress.close()
            print(f"interrupted; every finished episode is kept. Continue with: gui-bench run --resume --out {out}",
                  file=sys.stderr)
            return 130
        progress.close()
        summary = finalize(store, jobs, suite, time.monotonic() - started)
    finally:
        env.close()
    _print_summary(summary, out)
    overall = summary["overall"]
    if overall["tasks"] and overall["errors"] == overall["tasks"]:
        print("gui-bench run: every episode ended in an error: the run measured nothing (exit 1)", file=sys.stderr)
        return 1
    return 0

