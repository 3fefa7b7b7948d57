"""The results folder of a `gui-bench run`: layout, resume, summary and the terminal table.

    <out>/
      run.json                       what ran: env, agent, settings and the job list (first write)
      tasks/<task_id>__seed<seed>/   one episode, written by `TrajectoryRecorder`:
                                     traj.jsonl, step_NNNN.png, result.json (the last write)
      mind2web/<task_id>__seed<seed>/  web episodes again, in the Online-Mind2Web v2 layout
      summary.json                   totals overall, per domain and per difficulty
      report.html                    `gui-bench report`

Every file is written whole or not at all (temp file + rename), and an episode counts as done
only once its ``result.json`` exists; so after ``kill -9`` the folder tells exactly which
episodes to run again. An episode that ended in an error with a retry left is run again too.

A folder damaged from outside is named, not trusted: a ``run.json`` that does not parse or
holds the wrong types stops the command with one line naming the file and the field; a
``result.json`` that does not parse or holds the wrong types is logged as such and counts as
not done (``--resume`` runs that episode again); a path where a folder or a file should be
stops the command. A results folder is code to trust: ``--resume`` imports the agent file its
``run.json`` names (docs/security.md).
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

from gui_gym.errors import HarnessError, TaskConfigError
from gui_gym.records import (RESULT_FILE, EpisodeResult, atomic_write_json, episode_key, json_safe,
                             read_trajectory)

logger = logging.getLogger(__name__)

RESULTS_ROOT = Path("results")
"""Where runs go by default: ``results/<env>/<agent>/<time>/``."""
RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
TASKS_DIR = "tasks"
MIND2WEB_DIR = "mind2web"


@dataclass(frozen=True)
class Job:
    """One episode to run: a task instance, the suite's facts about it, and which attempt."""

    task_id: str
    seed: int
    meta: dict[str, Any] = field(default_factory=dict)
    attempt: int = 1
    previous_errors: tuple[str, ...] = ()
    retries_from: int = 1
    """The attempt the retry budget counts from: 1, or the attempt `--rerun-errors` gave the
    episode (a rerun gets a fresh budget and keeps its count and its error history)."""

    @property
    def key(self) -> str:
        return episode_key(self.task_id, self.seed)

    def retry(self, error: str) -> "Job":
        return replace(self, attempt=self.attempt + 1, previous_errors=self.previous_errors + (error,))

    def may_retry(self, retries: int) -> bool:
        """Whether an error on this attempt leaves one of `retries` retries."""
        return self.attempt - self.retries_from < retries

    def result_fields(self) -> dict[str, Any]:
        """What a result records of its job: enough for a resume to pick the episode up."""
        return {"key": self.key, "attempt": self.attempt, "previous_errors": list(self.previous_errors),
                "retries_from": self.retries_from, "meta": self.meta}

    def to_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "seed": self.seed, "key": self.key, "meta": self.meta}


def short_error(text: Any, limit: int = 160) -> str:
    """The first line of an error message, cut to `limit` characters, for tables and bars
    (result.json keeps the whole message: a browser crash carries its logs)."""
    line = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."


_NONE = type(None)
_NUMBER = (int, float)
RUN_FIELDS: dict[str, tuple[type, ...]] = {
    "env_id": (str,), "env_kwargs": (dict,), "agent": (str,), "agent_kwargs": (dict,), "jobs": (list,),
    "action_format": (str, _NONE), "created_at": (str,), "osworld_layout": (dict, _NONE)}
JOB_FIELDS: dict[str, tuple[type, ...]] = {"task_id": (str,), "seed": (int,), "key": (str,), "meta": (dict, _NONE)}
"""The fields of run.json the harness reads, and their JSON types (a field may be absent
unless required); result.json's are `gui_gym.records.EpisodeResult`'s."""
_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false", list: "a list",
               dict: "an object", _NONE: "null"}


class DamagedResults(HarnessError):
    """A file of a results folder that does not hold what the harness wrote there."""


def _type_error(path: Path, field: str, expected: tuple[type, ...], value: Any) -> str | None:
    if isinstance(value, expected) and not (isinstance(value, bool) and bool not in expected):
        return None
    names = " or ".join(_TYPE_NAMES[t] for t in expected if not (t is int and float in expected))
    return f"{path}: field {field}: expected {names}, received {json.dumps(value)[:60]}"


def check_fields(path: Path, value: Any, fields: dict[str, tuple[type, ...]], required: tuple[str, ...] = (),
                 where: str = "") -> None:
    """Raise `DamagedResults` naming `path` and the field when `value` is not an object with
    `required` and with `fields` of their types."""
    if not isinstance(value, dict):
        held = _TYPE_NAMES.get(type(value), type(value).__name__)
        raise DamagedResults(f"{path}: {where or 'the file'} should be a JSON object, it holds {held}")
    for name in required:
        if name not in value:
            raise DamagedResults(f"{path}: {where}{' ' if where else ''}lacks the field {name!r}")
    for name, expected in fields.items():
        if name in value:
            problem = _type_error(path, f"{where}{'.' if where else ''}{name}", expected, value[name])
            if problem:
                raise DamagedResults(problem)


def read_json(path: Path) -> Any:
    """The JSON in `path`; `DamagedResults` saying what is wrong when it is not a readable
    JSON file."""
    if path.is_dir():
        raise DamagedResults(f"{path}: expected a file, found a folder; move it away")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DamagedResults(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise DamagedResults(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        what = "empty" if not text.strip() else (
            f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
            if isinstance(exc, json.JSONDecodeError) else "JSON nested too deep to read")
        raise DamagedResults(f"{path}: {what}") from None


class ResultsStore:
    """Reads and writes one results folder."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self._reported: set[Path] = set()

    def task_dir(self, key: str) -> Path:
        return self.root / TASKS_DIR / key

    def mind2web_dir(self, key: str) -> Path:
        return self.root / MIND2WEB_DIR / key

    def read_run(self, required: tuple[str, ...] = ()) -> dict[str, Any] | None:
        """run.json, checked (`DamagedResults` names the file and field), or None when the
        folder has none. `required`: the fields the caller needs besides the job list."""
        path = self.root / RUN_FILE
        if not path.exists():
            return None
        run = read_json(path)
        check_fields(path, run, RUN_FIELDS, ("jobs", *required))
        for index, job in enumerate(run["jobs"]):
            check_fields(path, job, JOB_FIELDS, ("task_id", "seed"), where=f"jobs[{index}]")
            key = episode_key(job["task_id"], job["seed"])
            if job.setdefault("key", key) != key:
                raise DamagedResults(f"{path}: jobs[{index}].key is {job['key']!r}, but its task and seed make {key!r}")
        return run

    def write_run(self, run: dict[str, Any]) -> None:
        """Write run.json, making the results folder first; `HarnessError`, one line, when the
        folder cannot be made or written there (a file in the way, a path through a file, a
        file system that takes no folders)."""
        if self.root.exists() and not self.root.is_dir():
            raise HarnessError(f"cannot make the results folder {self.root}: a file of that name is in the way")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            atomic_write_json(self.root / RUN_FILE, run)
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            raise HarnessError(f"cannot make the results folder {self.root}: {exc.strerror or exc}{where}") from None

    def jobs_of_run(self) -> list[Job]:
        """The job list recorded in run.json."""
        run = self.read_run()
        if run is None:
            raise HarnessError(f"{self.root} holds no {RUN_FILE}: it is not a gui-bench results folder")
        return [Job(j["task_id"], j["seed"], dict(j.get("meta") or {})) for j in run["jobs"]]

    def check_layout(self, keys: Iterable[str]) -> None:
        """`DamagedResults` when a path the run writes to is of the wrong kind (``tasks`` a
        file, a ``result.json`` a folder): recording there would fail mid-run."""
        for folder in (self.root / TASKS_DIR, self.root / MIND2WEB_DIR):
            if folder.exists() and not folder.is_dir():
                raise DamagedResults(f"{folder}: expected a folder, found a file; move it away")
        for key in keys:
            for folder in (self.task_dir(key), self.mind2web_dir(key)):
                if folder.exists() and not folder.is_dir():
                    raise DamagedResults(f"{folder}: expected a folder, found a file; move it away")
                if (folder / RESULT_FILE).is_dir():
                    raise DamagedResults(f"{folder / RESULT_FILE}: expected a file, found a folder; move it away")

    def read_result(self, key: str) -> EpisodeResult | None:
        """An episode's result, or None when it has none yet. One that does not parse or
        holds the wrong types is not trusted: logged (once per file), and counted as not done,
        so the episode runs again."""
        path = self.task_dir(key) / RESULT_FILE
        if not path.exists():
            return None
        try:
            data = read_json(path)
            errors = data.get("previous_errors") if isinstance(data, dict) else None
            if errors is not None and not (isinstance(errors, list) and all(isinstance(e, str) for e in errors)):
                raise DamagedResults(f"{path}: field previous_errors: expected a list of strings")
            if isinstance(data, dict) and isinstance(data.get("timings"), dict):
                check_fields(path, data["timings"], {"total_s": (*_NUMBER, _NONE)}, where="timings")
            return EpisodeResult.from_dict(data, str(path))
        except (DamagedResults, TaskConfigError) as exc:
            if path.is_dir():
                raise
            if path not in self._reported:  # once per file, however often it is read
                self._reported.add(path)
                logger.warning("%s; the episode counts as not run", exc)
            return None

    def pending(self, jobs: Iterable[Job], retries: int, rerun_errors: bool = False) -> list[Job]:
        """The jobs still to run: no result yet, or an error with a retry left (or any error,
        with `rerun_errors`, with a fresh retry budget), each at its next attempt with the
        errors of the earlier ones."""
        todo = []
        jobs = list(jobs)
        self.check_layout(job.key for job in jobs)
        for job in jobs:
            result = self.read_result(job.key)
            if result is None:
                todo.append(job)
            elif result.error:
                ended = replace(job, attempt=result.attempt, previous_errors=tuple(result.previous_errors),
                                retries_from=result.retries_from)
                if rerun_errors:
                    todo.append(replace(ended.retry(result.error), retries_from=ended.attempt + 1))
                elif ended.may_retry(retries):
                    todo.append(ended.retry(result.error))
        return todo

    def results(self, jobs: Iterable[Job]) -> list[EpisodeResult]:
        """The recorded results of `jobs`, in job order (missing ones left out)."""
        return [r for r in (self.read_result(job.key) for job in jobs) if r is not None]

    def write_error_result(self, job: Job, error: str, kind: str, wall_s: float) -> EpisodeResult:
        """The result of an episode whose worker crashed or hung (nothing else could write it)."""
        folder = self.task_dir(job.key)
        steps = max(0, len(read_trajectory(folder)) - 1)  # line 0 is the reset
        result = EpisodeResult.from_dict(json_safe({
            "task_id": job.task_id, "seed": job.seed, "domain": job.meta.get("domain"), "success": False,
            "steps": steps, "truncated": True, "error": error, "error_kind": kind, "timings": {"total_s": wall_s},
            **job.result_fields()}), f"the error result of {job.key}")
        atomic_write_json(folder / RESULT_FILE, result.to_dict())
        return result

    def write_summary(self, summary: dict[str, Any]) -> None:
        atomic_write_json(self.root / SUMMARY_FILE, summary)

    def read_summary(self) -> dict[str, Any] | None:
        """summary.json, or None when there is none or it is damaged (it is rebuilt from the
        results; logged)."""
        path = self.root / SUMMARY_FILE
        if not path.exists():
            return None
        try:
            summary = read_json(path)
            check_fields(path, summary, {"wall_s": (*_NUMBER, _NONE), "suite_report": (str, _NONE)})
        except DamagedResults as exc:
            logger.warning("%s; it is rebuilt from the results", exc)
            return None
        return summary


def _group(rows: list[EpisodeResult]) -> dict[str, Any]:
    scored = [r for r in rows if r.outcome != "error"]
    successes = sum(r.outcome == "success" for r in rows)
    scores = [r.score for r in scored if r.score is not None]
    return {
        "tasks": len(rows), "successes": successes, "failures": len(scored) - successes,
        "errors": len(rows) - len(scored),
        "success_rate": successes / len(scored) if scored else None,
        "success_rate_with_errors": successes / len(rows) if rows else None,
        "mean_score": statistics.fmean(scores) if scores else None,
        "mean_steps": statistics.fmean(r.steps for r in scored) if scored else None,
        "episode_s": sum(float(r.timings.get("total_s") or 0.0) for r in rows),
    }


def task_facts(result: EpisodeResult) -> dict[str, Any]:
    """The suite's facts about a result's task (``describe``) with the result over them,
    flat: what `TaskSuite.report` receives."""
    # a field the result leaves unset (None: a worker's error result has no domain) does not
    # hide the suite's fact of that name
    return {**result.meta, **{k: v for k, v in result.to_dict().items() if k != "meta" and v is not None}}


def summarize(results: list[EpisodeResult], *, wall_s: float | None = None,
              run: dict[str, Any] | None = None) -> dict[str, Any]:
    """Totals overall and per domain and difficulty; errors listed apart from failures. The
    success rate is over scored episodes; ``success_rate_with_errors`` counts errors as misses."""
    by: dict[str, dict[str, list[dict[str, Any]]]] = {"domain": {}, "difficulty": {}}
    for result in results:
        facts = task_facts(result)
        for name, groups in by.items():
            if facts.get(name) is not None:
                groups.setdefault(str(facts[name]), []).append(result)
    return json_safe({
        "env_id": (run or {}).get("env_id"), "agent": (run or {}).get("agent"),
        "overall": _group(results),
        "by_domain": {k: _group(v) for k, v in sorted(by["domain"].items())},
        "by_difficulty": {k: _group(v) for k, v in sorted(by["difficulty"].items())},
        "errors": [{"key": r.key, "kind": r.error_kind, "error": short_error(r.error, 300)}
                   for r in results if r.outcome == "error"],
        "wall_s": wall_s,
    })


def _fmt(value: Any, kind: str) -> str:
    if value is None:
        return "-"
    if kind == "pct":
        return f"{100 * value:.1f}%"
    if kind == "float":
        return f"{value:.2f}"
    if kind == "time":
        return format_duration(value)
    return str(value)


def format_duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def format_table(summary: dict[str, Any]) -> str:
    """The summary as a plain-text table: overall, then one row per domain and difficulty."""
    columns = [("", None), ("tasks", "int"), ("success", "int"), ("rate", "pct"), ("score", "float"),
               ("steps", "float"), ("errors", "int"), ("time", "time")]
    keys = [None, "tasks", "successes", "success_rate", "mean_score", "mean_steps", "errors", "episode_s"]
    rows = [("overall", summary["overall"])]
    rows += [(f"domain {k}", v) for k, v in summary.get("by_domain", {}).items()]
    rows += [(f"difficulty {k}", v) for k, v in summary.get("by_difficulty", {}).items()]
    table = [[name] + [_fmt(group.get(key), kind) for key, (_, kind) in zip(keys[1:], columns[1:])]
             for name, group in rows]
    header = [c for c, _ in columns]
    widths = [max(len(str(r[i])) for r in table + [header]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths)))]
    lines.append("  ".join("-" * w for w in widths))
    for row in table:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    if summary.get("wall_s") is not None:
        lines.append(f"wall time {format_duration(summary['wall_s'])}; rate = successes / scored episodes "
                     "(errors are counted apart)")
    return "\n".join(lines)


def link_or_copy(source: Path, target: Path) -> None:
    """`target` the same file as `source` (a hard link: a layout written beside the task folders
    costs no second copy of their screenshots), or a copy where links cannot be made."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def slug(spec: str) -> str:
    """A folder name for an env id or agent spec: ``GUI/LocalWeb-v0`` -> ``LocalWeb-v0``,
    ``path/to/my_agent.py:Agent`` -> ``my_agent``."""
    path = spec.split(".py:")[0] + ".py" if ".py:" in spec else spec
    name = Path(path).stem if path.endswith(".py") else path.split("/")[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "run"


def latest_run(env_id: str, agent: str) -> Path:
    """The newest run of `env_id` with `agent` under `RESULTS_ROOT` (``--resume`` without ``--out``)."""
    parent = RESULTS_ROOT / slug(env_id) / slug(agent)
    runs = sorted(p for p in parent.glob("*") if (p / "run.json").is_file()) if parent.is_dir() else []
    if not runs:
        raise HarnessError(f"--resume found no run under {parent}; pass --out with the results folder to resume")
    return runs[-1]
