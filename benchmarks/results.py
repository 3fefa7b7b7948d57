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
"""

from __future__ import annotations

import json
import logging
import re
import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

from gui_gym.errors import HarnessError, TaskConfigError
from gui_gym.records import (RESULT_FILE, TRAJECTORY_FILE, EpisodeResult, atomic_write_json, episode_key, json_safe,
                             read_result)

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


class ResultsStore:
    """Reads and writes one results folder."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def task_dir(self, key: str) -> Path:
        return self.root / TASKS_DIR / key

    def mind2web_dir(self, key: str) -> Path:
        return self.root / MIND2WEB_DIR / key

    def read_run(self) -> dict[str, Any] | None:
        path = self.root / RUN_FILE
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None

    def write_run(self, run: dict[str, Any]) -> None:
        atomic_write_json(self.root / RUN_FILE, run)

    def jobs_of_run(self) -> list[Job]:
        """The job list recorded in run.json."""
        run = self.read_run()
        if run is None:
            raise HarnessError(f"{self.root} holds no {RUN_FILE}: it is not a gui-bench results folder")
        return [Job(j["task_id"], int(j["seed"]), dict(j.get("meta") or {})) for j in run["jobs"]]

    def read_result(self, key: str) -> EpisodeResult | None:
        try:
            return read_result(self.task_dir(key))
        except TaskConfigError as exc:  # unreadable counts as not done: the episode runs again
            logger.warning("%s; the episode counts as not done and runs again", exc)
            return None

    def pending(self, jobs: Iterable[Job], retries: int, rerun_errors: bool = False) -> list[Job]:
        """The jobs still to run: no result yet, or an error with a retry left (or any error,
        with `rerun_errors`, with a fresh retry budget), each at its next attempt with the
        errors of the earlier ones."""
        todo = []
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
        steps = 0
        traj = folder / TRAJECTORY_FILE
        if traj.is_file():
            steps = max(0, sum(1 for line in traj.read_text(encoding="utf-8").splitlines() if line.strip()) - 1)
        result = EpisodeResult.from_dict(json_safe({
            "task_id": job.task_id, "seed": job.seed, "domain": job.meta.get("domain"), "success": False,
            "steps": steps, "truncated": True, "error": error, "error_kind": kind, "timings": {"total_s": wall_s},
            **job.result_fields()}), f"the error result of {job.key}")
        atomic_write_json(folder / RESULT_FILE, result.to_dict())
        return result

    def write_summary(self, summary: dict[str, Any]) -> None:
        atomic_write_json(self.root / SUMMARY_FILE, summary)

    def read_summary(self) -> dict[str, Any] | None:
        path = self.root / SUMMARY_FILE
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


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
    return {**result.meta, **{k: v for k, v in result.to_dict().items() if k != "meta"}}


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
