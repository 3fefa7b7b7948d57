"""The no-op check of an OSWorld task set on the local desktop: two agents that do nothing.

An agent that answers ``DONE`` at once must score 0 on every task (an untouched desktop solves
nothing; an infeasible task needs ``FAIL``), and one that answers ``FAIL`` at once must score 1
exactly on the infeasible tasks. On OSWorld's VM both hold by construction of its tasks; on the
local desktop a mismatch means the sandbox starts from a state OSWorld's VM does not have (an
audio volume, a default application, a browser preference), which gives a do-nothing agent free
points. Each mismatch comes with what the evaluator read, which names the differing state.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gui_gym.backends.desktop.shell import DEFAULT_SHELL
from gui_gym.suites.osworld.context import DEFAULT_CACHE_DIR, FileCache
from gui_gym.suites.osworld.coverage import local_blocker, unmet
from gui_gym.suites.osworld.loader import OSWorldTaskSpec

log = logging.getLogger(__name__)

ANSWERS = ("DONE", "FAIL")
"""The two no-op agents: their one and only action."""


@dataclass(frozen=True)
class NoopResult:
    """One no-op episode: the task, the agent's one answer, the score it should get and got."""

    task_id: str
    domain: str
    answer: str
    infeasible: bool
    expected: float
    got: float | None
    """None: the episode did not reach an evaluation (`error` says why)."""
    read: str = ""
    """What the evaluator's metrics read (for a mismatch: the state that differs)."""
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.got == self.expected


def expected_score(answer: str, infeasible: bool) -> float:
    """OSWorld's rule on an untouched desktop: FAIL scores 1 exactly on infeasible tasks, DONE
    scores 0 everywhere."""
    return 1.0 if answer == "FAIL" and infeasible else 0.0


def offline_runnable(specs: Iterable[OSWorldTaskSpec], cache: FileCache, shell: str = DEFAULT_SHELL) -> list[OSWorldTaskSpec]:
    """The tasks that run end to end on the local desktop (with the desktop `shell`) here without
    the internet: nothing to download that the cache lacks, no web page, nothing the sandbox
    cannot provide."""
    return [s for s in specs if local_blocker(s, shell) is None and not unmet(s, cache, network=False)["network"]]


def run_noop(env: Any, task_id: str, domain: str, infeasible: bool, answer: str) -> NoopResult:
    """One episode of the `answer` agent on `task_id` in `env` (a ``GUI/OSWorld-v0`` env)."""
    expected = expected_score(answer, infeasible)
    result = {"task_id": task_id, "domain": domain, "answer": answer, "infeasible": infeasible, "expected": expected}
    try:
        env.reset(options={"task_id": task_id})
        _, reward, _, _, info = env.step(answer)
    except Exception as exc:  # one task's setup failing must not end the check: it is reported as its result
        log.warning("no-op check: %s on %s: %s: %s", answer, task_id, type(exc).__name__, exc)
        return NoopResult(**result, got=None, error=f"{type(exc).__name__}: {exc}")
    if info.get("infra_error") or info.get("action_error") or "score" not in info:
        return NoopResult(**result, got=None,
                          error=str(info.get("infra_error") or info.get("action_error") or "no score"))
    metrics = info.get("evaluation", {}).get("metrics", [])
    read = "; ".join(f"{m.get('func')}={m.get('score')} read {m.get('read', '-')}"
                     + (f" ({m['error']})" if m.get("error") else "") for m in metrics)
    return NoopResult(**result, got=float(reward), read=read)


def run_check(make_env: Callable[[], Any], specs: list[OSWorldTaskSpec], answers: Iterable[str] = ANSWERS,
              report: Callable[[NoopResult], None] | None = None) -> list[NoopResult]:
    """Both no-op agents (or `answers`) over `specs`, in one env; `report` sees each result as it comes."""
    results = []
    env = make_env()
    try:
        for spec in specs:
            for answer in answers:
                outcome = run_noop(env, spec.id, spec.domain, spec.evaluator.infeasible, answer)
                results.append(outcome)
                if report is not None:
                    report(outcome)
    finally:
        env.close()
    return results


def domain_table(results: Iterable[NoopResult]) -> list[dict[str, Any]]:
    """Per domain and in total: tasks, how many scored DONE=0 as they should, how many scored
    FAIL as they should (1 on infeasible, 0 on the rest), and the mismatches."""
    rows: dict[str, Counter] = defaultdict(Counter)
    tasks: dict[str, set[str]] = defaultdict(set)
    infeasible: dict[str, set[str]] = defaultdict(set)
    for r in results:
        for domain in (r.domain, "total"):
            tasks[domain].add(r.task_id)
            if r.infeasible:
                infeasible[domain].add(r.task_id)
            rows[domain][f"{r.answer} ok"] += r.ok
            rows[domain]["mismatches"] += not r.ok
    order = sorted(d for d in rows if d != "total") + ["total"]
    return [{"domain": d, "tasks": len(tasks[d]), "infeasible": len(infeasible[d]),
             "DONE=0 ok": rows[d]["DONE ok"], "FAIL ok": rows[d]["FAIL ok"], "mismatches": rows[d]["mismatches"]}
            for d in order]


def result_line(r: NoopResult) -> str:
    """One task's line: expected, got, and for a mismatch what the evaluator read or the error."""
    got = "error" if r.got is None else f"{r.got:g}"
    line = f"{'ok      ' if r.ok else 'MISMATCH'} {r.domain}/{r.task_id} {r.answer}: expected {r.expected:g}, got {got}"
    if not r.ok:
        line += f" -- {r.error or r.read or 'nothing read'}"
    return line


def as_records(results: Iterable[NoopResult]) -> list[dict[str, Any]]:
    return [asdict(r) for r in results]


def default_cache(path: str | Path | None) -> FileCache:
    """The file cache the check looks in (never downloads)."""
    return FileCache(Path(path).expanduser() if path else DEFAULT_CACHE_DIR, allow_download=False)
