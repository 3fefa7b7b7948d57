"""The results folder: which jobs a resume runs again, summaries with errors apart from
failures, the terminal table."""

from __future__ import annotations

import json

import pytest

from gui_gym.benchmarks.harness.results import Job, ResultsStore, format_table, short_error, summarize, task_facts
from gui_gym.errors import HarnessError
from gui_gym.records import EpisodeResult


def _result(task_id, seed=0, *, success=False, error=None, attempt=1, steps=3, domain="shop", difficulty="easy",
            score=None, previous=()):
    return EpisodeResult.from_dict({
        "task_id": task_id, "seed": seed, "key": f"{task_id}__seed{seed}", "success": success,
        "score": score if score is not None else (None if error else float(success)), "steps": steps,
        "error": error, "error_kind": "crash" if error else None, "attempt": attempt,
        "previous_errors": list(previous), "timings": {"total_s": 2.0},
        "meta": {"task_id": task_id, "domain": domain, "difficulty": difficulty}})


def _store(tmp_path, results):
    store = ResultsStore(tmp_path)
    for result in results:
        folder = store.task_dir(result.key)
        folder.mkdir(parents=True)
        (folder / "result.json").write_text(json.dumps(result.to_dict()))
    return store


def test_pending_runs_exactly_the_unfinished_jobs_at_their_next_attempt(tmp_path):
    jobs = [Job(t, 0) for t in ("done", "failed", "errored", "exhausted", "missing", "torn")]
    store = _store(tmp_path, [_result("done", success=True), _result("failed"),
                              _result("errored", error="worker died", attempt=1),
                              _result("exhausted", error="worker died", attempt=2, previous=["hang"])])
    torn = store.task_dir("torn__seed0")
    torn.mkdir(parents=True)
    (torn / "result.json").write_text('{"task_id": "torn", "suc')  # not written by us, but never trusted
    pending = store.pending(jobs, retries=1)
    assert [(j.task_id, j.attempt, j.previous_errors) for j in pending] == [
        ("errored", 2, ("worker died",)), ("missing", 1, ()), ("torn", 1, ())]
    assert [j.task_id for j in store.pending(jobs, retries=0)] == ["missing", "torn"]
    rerun = store.pending(jobs, retries=1, rerun_errors=True)
    assert [(j.task_id, j.attempt, j.previous_errors) for j in rerun] == [
        ("errored", 2, ("worker died",)), ("exhausted", 3, ("hang", "worker died")), ("missing", 1, ()), ("torn", 1, ())]
    assert [j.may_retry(1) for j in rerun] == [True, True, True, True]  # a rerun gets a fresh retry budget


def test_a_rerun_keeps_its_history_and_its_own_retry_budget(tmp_path):
    job = Job("t", 0, attempt=2, previous_errors=("hang",))
    assert not job.may_retry(1) and job.may_retry(2)
    store = ResultsStore(tmp_path)
    store.task_dir(job.key).mkdir(parents=True)
    store.write_error_result(job, "worker died", "crash", 1.0)
    (rerun,) = store.pending([Job("t", 0)], retries=1, rerun_errors=True)
    assert (rerun.attempt, rerun.previous_errors, rerun.retries_from) == (3, ("hang", "worker died"), 3)
    store.write_error_result(rerun, "worker died again", "crash", 1.0)
    (retry,) = store.pending([Job("t", 0)], retries=1)  # a plain resume: the rerun's one retry is left
    assert (retry.attempt, retry.previous_errors) == (4, ("hang", "worker died", "worker died again"))
    store.write_error_result(retry, "and again", "crash", 1.0)
    assert store.pending([Job("t", 0)], retries=1) == []


def test_run_json_holds_the_job_list(tmp_path):
    store = ResultsStore(tmp_path)
    with pytest.raises(HarnessError, match="holds no run.json: it is not a gui-bench results folder"):
        store.jobs_of_run()
    jobs = [Job("a", 0, {"domain": "shop"}), Job("a", 1)]
    store.write_run({"env_id": "GUI/Demo-v0", "jobs": [j.to_dict() for j in jobs]})
    assert store.jobs_of_run() == jobs
    assert jobs[0].key == "a__seed0" and jobs[0].retry("boom") == Job("a", 0, {"domain": "shop"}, 2, ("boom",))


def test_a_dead_workers_result_counts_the_steps_it_recorded(tmp_path):
    store = ResultsStore(tmp_path)
    job = Job("t", 3, {"domain": "mail"}, attempt=2, previous_errors=("hang",))
    folder = store.task_dir(job.key)
    folder.mkdir(parents=True)
    (folder / "traj.jsonl").write_text('{"step": 0}\n{"step": 1}\n{"step": 2}\n')
    result = store.write_error_result(job, "worker process died (exit code -9)", "crash", 4.5)
    assert store.read_result(job.key) == result
    assert (result.steps, result.attempt, result.previous_errors, result.domain) == (2, 2, ["hang"], "mail")
    assert result.outcome == "error" and result.error_kind == "crash" and result.truncated


def test_summary_counts_errors_apart_and_groups_by_domain_and_difficulty():
    results = [_result("a", success=True), _result("b", domain="mail", difficulty="hard"),
               _result("c", error="episode exceeded its 600 s wall-clock limit", domain="mail"),
               _result("d", success=True, difficulty="hard", steps=5)]
    summary = summarize(results, wall_s=61.0)
    overall = summary["overall"]
    assert (overall["tasks"], overall["successes"], overall["failures"], overall["errors"]) == (4, 2, 1, 1)
    assert overall["success_rate"] == pytest.approx(2 / 3) and overall["success_rate_with_errors"] == 0.5
    assert overall["mean_steps"] == pytest.approx(11 / 3) and overall["episode_s"] == 8.0
    assert summary["by_domain"]["mail"]["errors"] == 1 and summary["by_domain"]["shop"]["successes"] == 2
    assert summary["by_difficulty"]["hard"]["success_rate"] == 0.5
    assert summary["errors"] == [{"key": "c__seed0", "kind": "crash", "error": "episode exceeded its 600 s wall-clock limit"}]
    table = format_table(summary).splitlines()
    assert table[0].split() == ["tasks", "success", "rate", "score", "steps", "errors", "time"]
    assert table[2].split() == ["overall", "4", "2", "66.7%", "0.67", "3.67", "1", "8s"]
    assert [line.split()[1] for line in table[3:7]] == ["mail", "shop", "easy", "hard"]
    assert table[-1].startswith("wall time 1m01s")
    assert task_facts(results[0])["difficulty"] == "easy" and "meta" not in task_facts(results[0])


def test_an_empty_run_summarizes_without_dividing_by_zero():
    summary = summarize([])
    assert summary["overall"]["success_rate"] is None
    assert format_table(summary).splitlines()[2].split() == ["overall", "0", "0", "-", "-", "-", "0", "0s"]


def test_errors_are_shortened_for_tables_but_kept_whole_in_results():
    crash = "BrowserBackend crashed: TargetClosedError: closed\nBrowser logs:\n" + "x" * 5000
    assert short_error(crash) == "BrowserBackend crashed: TargetClosedError: closed"
    assert short_error("y" * 500, 20) == "y" * 17 + "..."
    summary = summarize([_result("a", error=crash)])
    assert summary["errors"][0]["error"] == "BrowserBackend crashed: TargetClosedError: closed"
