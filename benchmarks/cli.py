"""`gui-bench`: list the envs, run an agent on one, report a results folder.

    gui-bench run                                   # the oracle on GUI/LocalWeb-v0
    gui-bench run --env GUI/Demo-v0 --agent random --workers 2
    gui-bench run --agent openai --agent-arg base_url=http://127.0.0.1:8000/v1 --tasks domain:shop --limit 20
    gui-bench run --resume --out results/LocalWeb-v0/oracle/20250101-120000
    gui-bench report results/LocalWeb-v0/oracle/20250101-120000

A subcommand is one function registered in `SUBCOMMANDS` as ``"module:attribute"``; the
function is wrapped by `subcommand(help, *arguments)`, which declares its arguments. Adding
one (say ``judge``) is one entry in the table and one decorated function in its own module.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import re
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from gui_gym.errors import GUIGymError, HarnessError
from gui_gym.registration import parse_kwarg
from gui_gym.judges.criteria import CRITERIA_ARGUMENTS, CRITERIA_HELP
from gui_gym.judges.criteria import run_cli as run_criteria_cli

DEFAULT_ENV_ID = "GUI/LocalWeb-v0"
DEFAULT_AGENT = "oracle"
RESULTS_ROOT = Path("results")


@dataclass(frozen=True)
class Subcommand:
    """A CLI subcommand: its help line, its arguments, and the function that runs it."""

    help: str
    arguments: tuple[tuple[tuple[str, ...], dict[str, Any]], ...]
    run: Callable[[argparse.Namespace], int]


def arg(*flags: str, **kwargs: Any) -> tuple[tuple[str, ...], dict[str, Any]]:
    """One argument, spelled as for `argparse.ArgumentParser.add_argument`."""
    return flags, kwargs


def subcommand(help: str, *arguments: tuple[tuple[str, ...], dict[str, Any]]) -> Callable[[Callable], Subcommand]:
    """Declare a function ``f(args) -> exit code`` as a subcommand with `arguments`."""
    def wrap(function: Callable[[argparse.Namespace], int]) -> Subcommand:
        return Subcommand(help, tuple(arguments), function)
    return wrap


SUBCOMMANDS: dict[str, str] = {
    "list": "benchmarks.cli:list_command",
    "run": "benchmarks.cli:run_command",
    "report": "benchmarks.cli:report_command",
    "perf": "benchmarks.perf_harness:perf_command",
    "judge": "benchmarks.cli:judge_command",
    "criteria": "benchmarks.cli:criteria_command",
}
"""Subcommand name -> ``module:attribute`` of its `Subcommand`, imported when the CLI starts."""


def parse_assignments(pairs: list[str] | None, what: str) -> dict[str, Any]:
    """``["k=v", ...]`` as a dict (`gui_gym.registration.parse_kwarg` reads each pair)."""
    values: dict[str, Any] = {}
    for pair in pairs or []:
        try:
            key, value = parse_kwarg(pair)
        except ValueError:
            raise HarnessError(f"{what} expects key=value, received {pair!r}") from None
        values[key] = value
    return values


def make_env(env_id: str, env_kwargs: dict[str, Any]):
    """The env, made in this process to read its task list (no browser starts before reset)."""
    import gymnasium as gym

    import gui_gym  # noqa: F401 - registers the GUI/* ids

    try:
        return gym.make(env_id, **env_kwargs)
    except gym.error.Error as exc:
        ids = [i for i in gym.registry if i.startswith("GUI/")]
        close = difflib.get_close_matches(env_id, ids, n=2)
        raise HarnessError(f"cannot make {env_id!r}: {exc}" + (f"; did you mean {close}?" if close else "")) from exc
    except GUIGymError:
        raise
    except Exception as exc:
        raise HarnessError(f"cannot make {env_id!r}: {type(exc).__name__}: {exc}") from exc


def select_tasks(task_ids: list[str], describe: Callable[[str], dict[str, Any]], specs: list[str] | None,
                 limit: int | None) -> list[str]:
    """Task ids chosen by `specs`: ids, files (one id per line, or a JSON list), and filters
    ``field:value`` on the suite's `describe` facts (``domain:shop``, ``difficulty:hard``)."""
    items = [part.strip() for spec in (specs or []) for part in spec.split(",") if part.strip()]
    known = set(task_ids)
    chosen: list[str] = []
    for item in items or [None]:
        if item is None:
            picked = list(task_ids)
        elif item in known:
            picked = [item]
        elif Path(item).is_file():
            picked = _read_id_file(Path(item), known)
        elif re.fullmatch(r"[A-Za-z_]\w*:.+", item):
            field, value = item.split(":", 1)
            picked = [t for t in task_ids if str(describe(t).get(field)) == value]
            if not picked:
                values = sorted({str(describe(t).get(field)) for t in task_ids})
                raise HarnessError(f"--tasks {item!r} selects nothing; {field} takes the values {values}")
        else:
            close = difflib.get_close_matches(item, task_ids, n=3)
            raise HarnessError(f"--tasks {item!r} is not a task id, a file, or a field:value filter"
                               + (f"; did you mean {close}?" if close else ""))
        chosen += [t for t in picked if t not in chosen]
    if limit is not None:
        if limit < 1:
            raise HarnessError(f"--limit must be >= 1, received {limit}")
        chosen = chosen[:limit]
    return chosen


def _read_id_file(path: Path, known: set[str]) -> list[str]:
    text = path.read_text(encoding="utf-8")
    try:
        ids = json.loads(text)
    except json.JSONDecodeError:
        ids = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise HarnessError(f"task file {str(path)!r}: expected one id per line or a JSON list of ids")
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise HarnessError(f"task file {str(path)!r} names unknown task ids {unknown[:5]}")
    return ids


def describe_env(env_id: str) -> tuple[str, str]:
    """(task count, what the env needs / why it cannot be made) for `list`."""
    try:
        env = make_env(env_id, {})
    except GUIGymError as exc:
        return "-", f"unavailable: {exc}"
    try:
        unwrapped = env.unwrapped
        count = str(len(unwrapped.task_ids))
        needs = getattr(unwrapped.suite, "needs", None)
        if needs is None:
            backend = type(getattr(unwrapped, "backend", None)).__name__
            needs = "Chromium (found automatically; $GUI_GYM_CHROMIUM overrides)" if backend == "BrowserBackend" \
                else f"what its {backend} drives"
        return count, f"ready; needs {needs}"
    except GUIGymError as exc:
        return "-", f"unavailable: {exc}"
    finally:
        env.close()


@subcommand("list the GUI/* env ids, their task counts and what each needs; or one env's tasks",
            arg("--env", help="list this env's tasks with the suite's facts (domain, difficulty, ...)"))
def list_command(args: argparse.Namespace) -> int:
    from gui_gym.registration import ENV_IDS

    if args.env:
        env = make_env(args.env, {})
        try:
            suite = env.unwrapped.suite
            for task_id in env.unwrapped.task_ids:
                facts = {k: v for k, v in suite.describe(task_id).items() if k != "task_id"}
                print(task_id + ("  " + json.dumps(facts, ensure_ascii=False) if facts else ""))
        finally:
            env.close()
        return 0
    rows = [(env_id, *describe_env(env_id)) for env_id in ENV_IDS]
    width = max(len(r[0]) for r in rows)
    print(f"{'env id'.ljust(width)}  tasks  status")
    for env_id, count, status in rows:
        print(f"{env_id.ljust(width)}  {count.rjust(5)}  {status}")
    return 0


def _slug(spec: str) -> str:
    """A folder name for an env id or agent spec: ``GUI/LocalWeb-v0`` -> ``LocalWeb-v0``,
    ``path/to/my_agent.py:Agent`` -> ``my_agent``."""
    path = spec.split(".py:")[0] + ".py" if ".py:" in spec else spec
    name = Path(path).stem if path.endswith(".py") else path.split("/")[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "run"


def _latest_run(env_id: str, agent: str) -> Path:
    parent = RESULTS_ROOT / _slug(env_id) / _slug(agent)
    runs = sorted(p for p in parent.glob("*") if (p / "run.json").is_file()) if parent.is_dir() else []
    if not runs:
        raise HarnessError(f"--resume found no run under {parent}; pass --out with the results folder to resume")
    return runs[-1]


def finalize(store: Any, jobs: list[Any], suite: Any, wall_s: float | None, *, images: str = "webp",
             suite_report: str | None = None) -> dict[str, Any]:
    """Summary (with the suite's own report when it has one, else `suite_report`), the
    Online-Mind2Web layouts a killed run did not finish, and the HTML report. Returns the summary."""
    from benchmarks.mind2web_layout import write_from_episode
    from benchmarks.report import build_report
    from benchmarks.results import summarize, task_facts

    results = store.results(jobs)
    summary = summarize(results, wall_s=wall_s, run=store.read_run())
    hook = getattr(suite, "report", None)
    summary["suite_report"] = hook([task_facts(r) for r in results]) if callable(hook) and results else suite_report
    store.write_summary(summary)
    for job in jobs:
        if not (store.mind2web_dir(job.key) / "result.json").is_file():
            write_from_episode(store.task_dir(job.key), store.mind2web_dir(job.key),
                               reference_length=job.meta.get("reference_length"))
    build_report(store.root, images=images, summary=summary, store=store)
    return summary


def _print_summary(summary: dict[str, Any], root: Path) -> None:
    from benchmarks.results import format_table, short_error

    print(format_table(summary))
    errors = summary.get("errors") or []
    for error in errors[:10]:
        print(f"  error in {error['key']} ({error['kind']}): {short_error(error['error'])}")
    if len(errors) > 10:
        print(f"  ... and {len(errors) - 10} more errors (summary.json lists them all)")
    if summary.get("suite_report"):
        print()
        print(summary["suite_report"])
    print(f"\nresults: {root}\nreport:  {root / 'report.html'} (open it in a browser)")


RUN_SETTINGS = ("tasks", "limit", "seed", "repeats", "max_steps", "env_arg", "agent_arg")
"""What a resumed run takes from its run.json; giving them again is a mistake we name."""


def _check_resume(args: argparse.Namespace, run: dict[str, Any]) -> None:
    for name, recorded in (("env", run["env_id"]), ("agent", run["agent"])):
        given = getattr(args, name)
        if given is not None and given != recorded:
            raise HarnessError(f"--resume: this folder holds a run of --{name} {recorded!r}, received {given!r}")
    given = [f"--{n.replace('_', '-')}" for n in RUN_SETTINGS if getattr(args, n) is not None]
    if given:
        raise HarnessError(f"--resume takes the run's settings from its run.json; drop {', '.join(given)}")


@subcommand(
    "run an agent on an env, recording every episode; resumable after any interruption",
    arg("--env", help=f"env id (default {DEFAULT_ENV_ID})"),
    arg("--env-arg", action="append", metavar="K=V", help="env keyword argument, repeatable (values parse as JSON when they can)"),
    arg("--agent", help=f"the agent: a name (random, oracle, replay, openai), 'module:Class' or 'file.py[:Class]' (default {DEFAULT_AGENT})"),
    arg("--agent-arg", action="append", metavar="K=V", help="agent constructor argument, repeatable"),
    arg("--tasks", action="append", metavar="SPEC", help="task ids, a file of ids, or field:value filters such as domain:shop; comma-separated or repeated"),
    arg("--limit", type=int, help="run at most this many tasks"),
    arg("--seed", type=int, help="instance seed of every task (default 0)"),
    arg("--repeats", type=int, help="instances per task, with seeds seed .. seed+repeats-1 (default 1)"),
    arg("--workers", type=int, default=1, help="worker processes, each with its own env (default 1)"),
    arg("--max-steps", type=int, help="step limit per episode (default: each task's own)"),
    arg("--episode-timeout", type=float, default=600.0, help="wall-clock limit per episode in seconds (default 600)"),
    arg("--retries", type=int, default=1, help="reruns of an episode that ends in an error (default 1)"),
    arg("--screenshot-format", choices=("webp", "png"), default="webp",
        help="how screenshots are stored: lossless WebP (default, a third of the size) or PNG"),
    arg("--out", help="results folder (default results/<env>/<agent>/<time>)"),
    arg("--resume", action="store_true", help="continue the run in --out (default: the latest run of --env/--agent)"),
    arg("--rerun-errors", action="store_true", help="with --resume, run episodes that ended in an error again"),
)
def run_command(args: argparse.Namespace) -> int:
    from agents import load_agent
    from benchmarks.results import Job, ResultsStore
    from benchmarks.runner import Progress, RunConfig, Runner
    from gui_gym.wrappers.recorder import json_safe

    if args.resume:
        out = Path(args.out) if args.out else _latest_run(args.env or DEFAULT_ENV_ID, args.agent or DEFAULT_AGENT)
        store = ResultsStore(out)
        run = store.read_run(required=("env_id", "env_kwargs", "agent", "agent_kwargs"))
        if run is None:
            raise HarnessError(f"--resume: {out} holds no run.json, so there is no run to continue")
        _check_resume(args, run)
        env_id, env_kwargs, agent_spec, agent_kwargs = run["env_id"], run["env_kwargs"], run["agent"], run["agent_kwargs"]
        jobs = store.jobs_of_run()
    else:
        env_id, agent_spec = args.env or DEFAULT_ENV_ID, args.agent or DEFAULT_AGENT
        agent_kwargs = parse_assignments(args.agent_arg, "--agent-arg")
        env_kwargs = parse_assignments(args.env_arg, "--env-arg")
        agent = load_agent(agent_spec, **agent_kwargs)  # fails here, not in every worker
        for name in ("action_format", "format_context"):
            if getattr(agent, name, None) is not None:
                env_kwargs.setdefault(name, getattr(agent, name))
        if callable(getattr(agent, "close", None)):
            agent.close()
        if args.max_steps is not None:
            env_kwargs["max_steps"] = args.max_steps
    env = make_env(env_id, env_kwargs)
    try:
        suite = env.unwrapped.suite
        if not args.resume:
            seed, repeats = args.seed if args.seed is not None else 0, args.repeats if args.repeats is not None else 1
            if repeats < 1:
                raise HarnessError(f"--repeats must be >= 1, received {repeats}")
            ids = select_tasks(env.unwrapped.task_ids, suite.describe, args.tasks, args.limit)
            jobs = [Job(t, seed + r, json_safe(suite.describe(t))) for t in ids for r in range(repeats)]
            out = Path(args.out) if args.out else (RESULTS_ROOT / _slug(env_id) / _slug(agent_spec)
                                                   / datetime.now().strftime("%Y%m%d-%H%M%S"))
            store = ResultsStore(out)
            if store.read_run() is not None:
                raise HarnessError(f"{out} already holds a run: continue it with --resume, or choose another --out")
            store.write_run({"env_id": env_id, "env_kwargs": env_kwargs, "agent": agent_spec,
                             "agent_kwargs": agent_kwargs, "created_at": datetime.now().astimezone().isoformat(),
                             "action_format": env_kwargs.get("action_format"), "jobs": [j.to_dict() for j in jobs]})
        todo = store.pending(jobs, args.retries, args.rerun_errors)
        todo_keys = {job.key for job in todo}
        previous = store.results([job for job in jobs if job.key not in todo_keys])
        print(f"gui-bench: {env_id} with agent {agent_spec}: {len(todo)} of {len(jobs)} episodes to run "
              f"on {min(args.workers, max(1, len(todo)))} worker(s)\nresults: {out}", flush=True)
        config = RunConfig(env_id, out, agent_spec, agent_kwargs, env_kwargs, workers=args.workers,
                           episode_timeout_s=args.episode_timeout, retries=args.retries,
                           image_format=args.screenshot_format)
        progress = Progress(len(jobs), previous=previous)
        started = time.monotonic()
        try:
            Runner(config, todo, on_result=progress.record, on_tick=progress.tick).run()
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
    return 0


@subcommand("write the self-contained HTML report of a results folder and print its summary",
            arg("dir", help="a gui-bench results folder"),
            arg("--images", choices=("webp", "png", "link"), default="webp",
                help="screenshots embedded as WebP (default) or PNG, or linked to the files beside the report"))
def report_command(args: argparse.Namespace) -> int:
    from benchmarks.report import build_report
    from benchmarks.results import ResultsStore

    store = ResultsStore(args.dir)
    run = store.read_run(required=("env_id", "env_kwargs"))
    if run is None:
        path = build_report(store.root, images=args.images)
        print(f"report: {path}")
        return 0
    jobs = store.jobs_of_run()
    previous = store.read_summary() or {}
    try:
        env = make_env(run["env_id"], run["env_kwargs"])
    except GUIGymError:
        env = None  # the env cannot be made here: keep the suite's report from the run itself
    try:
        summary = finalize(store, jobs, env.unwrapped.suite if env is not None else None, previous.get("wall_s"),
                           images=args.images, suite_report=previous.get("suite_report"))
    finally:
        if env is not None:
            env.close()
    _print_summary(summary, store.root)
    return 0


@subcommand(
    "judge recorded web episodes with a WebJudge-style LVLM judge (resumable by task) and print its agreement "
    "with the env's own success where that is known",
    arg("dirs", nargs="+", metavar="DIR", help="gui-bench results folders, or Online-Mind2Web results folders "
        "(<task_id>/result.json with trajectory/, v1 or v2)"),
    arg("--model", help="the judge model (default $GUI_GYM_JUDGE_MODEL)"),
    arg("--base-url", help="its OpenAI-compatible API root (default $GUI_GYM_JUDGE_BASE_URL, then $OPENAI_BASE_URL)"),
    arg("--api-key", help="its API key (default $GUI_GYM_JUDGE_API_KEY, then $OPENAI_API_KEY)"),
    arg("--temperature", type=float, default=0.0, help="sampling temperature (default 0)"),
    arg("--score-threshold", type=int, default=3, help="screenshots scoring at least this (1-5) reach the verdict (default 3)"),
    arg("--max-images", type=int, default=50, help="at most this many screenshots reach the verdict (default 50)"),
    arg("--attempts", type=int, default=3, help="tries per question when the judge answers off-format (default 3)"),
    arg("--workers", type=int, default=4, help="screenshots scored concurrently (default 4)"),
    arg("--protocol", action="append", choices=("strict", "official", "keypoint"),
        help="strict (ours, the default), official (the benchmark's script: its order, parsing and evidence), or "
             "keypoint (a verdict per key point); repeat to judge under several and compare their agreement"),
    arg("--max-tokens", type=int, default=1024, help="the judge's answer length cap (default 1024; the script's is 512)"),
    arg("--max-image-side", type=int, default=1280,
        help="screenshots are downscaled so no side exceeds this (default 1280; the script sends them full size)"),
    arg("--name", help="verdicts go to <task folder>/webjudge/<name>/, <name>-official/, <name>-keypoint/ "
        "(default: the model's name)"),
    arg("--labels", help="JSON {task_id: true|false}: ground truth for folders without it (e.g. human labels)"),
    arg("--cache", help="a folder where judge answers are cached by content"),
)
def judge_command(args: argparse.Namespace) -> int:
    from benchmarks.mind2web_layout import find_web_episodes, read_labels
    from gui_gym.judges.openai_judge import OpenAIJudge
    from gui_gym.suites.mind2web.agreement import agreement_of

    labels = read_labels(args.labels) if args.labels else None
    folders = {Path(d): find_web_episodes(d, labels) for d in args.dirs}
    try:
        chat = OpenAIJudge(args.model, args.base_url, args.api_key, temperature=args.temperature,
                           max_tokens=args.max_tokens, max_image_side=args.max_image_side)
    except ValueError as exc:
        raise HarnessError(f"judge: {exc}") from exc
    protocols = list(dict.fromkeys(args.protocol or ["strict"]))
    agreements = {}
    try:
        for protocol in protocols:
            rows = _judge_folders(args, chat, protocol, folders)
            agreements[protocol] = agreement_of(rows)
    finally:
        chat.close()
    if len(protocols) > 1:
        print("\nagreement with ground truth by protocol:")
        print(_agreement_table(agreements))
    return 0


def _judge_folders(args: argparse.Namespace, chat: Any, protocol: str, folders: dict[Path, list[Any]]) -> list[dict]:
    """Judge every episode of `folders` under `protocol` (resuming what is recorded), write
    each folder's ``webjudge-<name>.json``, print the counts and the agreement; the rows."""
    from benchmarks.results import short_error
    from gui_gym.judges.cache import CachedJudge
    from gui_gym.judges.webjudge import WebJudge
    from gui_gym.suites.mind2web.agreement import agreement_of
    from gui_gym.wrappers.recorder import atomic_write_json

    try:
        judge = WebJudge(CachedJudge(chat, args.cache) if args.cache else chat, score_threshold=args.score_threshold,
                         max_images=args.max_images, attempts=args.attempts, workers=args.workers, protocol=protocol)
    except ValueError as exc:
        raise HarnessError(f"judge: {exc}") from exc
    name = _slug(args.name or chat.model) + ("" if protocol == "strict" else f"-{protocol}")
    total, rows = sum(map(len, folders.values())), []
    for root, episodes in folders.items():
        judged = []
        for episode in episodes:
            verdict, resumed = judge.evaluate_or_resume(episode.trajectory, episode.folder / "webjudge" / name)
            judged.append({"key": episode.key, "task_id": episode.trajectory.task_id, "schema": episode.schema,
                           "status": verdict.status, "ground_truth": episode.ground_truth, "error": verdict.error})
            print(f"[{len(rows) + len(judged)}/{total}] {verdict.status}{' (recorded earlier)' if resumed else ''} "
                  f"{root / episode.key}" + (f"  ({short_error(verdict.error)})" if verdict.error else ""), flush=True)
        atomic_write_json(root / f"webjudge-{name}.json", {"judge": judge.judge.identity, "settings": judge.settings,
                                                           "agreement": agreement_of(judged).to_dict(),
                                                           "episodes": judged})
        rows += judged
    counts = {s: sum(r["status"] == s for r in rows) for s in ("success", "failure", "error")}
    print(f"judged {len(rows)} episode(s) with {judge.judge.identity} ({protocol} protocol): {counts['success']} success, "
          f"{counts['failure']} failure, {counts['error']} judge error(s) (never counted as either)")
    truth = agreement_of(rows)
    print(f"agreement with ground truth: {truth.describe()}" if truth.n else
          "agreement with ground truth: none known (pass --labels for folders whose env has no success check)")
    return rows


def _agreement_table(agreements: dict[str, Any]) -> str:
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}%"

    lines = ["| protocol | n | accuracy | precision | recall | tp | fp | fn | tn |", "|---|---|---|---|---|---|---|---|---|"]
    for protocol, a in agreements.items():
        lines.append(f"| {protocol} | {a.n} | {pct(a.accuracy)} | {pct(a.precision)} | {pct(a.recall)} | "
                     f"{a.tp} | {a.fp} | {a.fn} | {a.tn} |")
    return "\n".join(lines)


criteria_command = Subcommand(CRITERIA_HELP, CRITERIA_ARGUMENTS, run_criteria_cli)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gui-bench", description="Benchmark GUI agents on gui-gym envs.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, target in SUBCOMMANDS.items():
        module, _, attribute = target.partition(":")
        try:
            command: Subcommand = getattr(importlib.import_module(module), attribute)
        except Exception as exc:  # one broken module must not take the other commands down
            commands.add_parser(name, help=f"(unavailable: {type(exc).__name__}: {exc})")
            continue
        sub = commands.add_parser(name, help=command.help, description=command.help)
        for flags, kwargs in command.arguments:
            sub.add_argument(*flags, **kwargs)
        sub.set_defaults(command_run=command.run)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "command_run", None) is None:
        print(f"gui-bench {args.command}: unavailable in this install (see gui-bench --help)", file=sys.stderr)
        return 2
    try:
        return args.command_run(args)
    except GUIGymError as exc:
        print(f"gui-bench {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
