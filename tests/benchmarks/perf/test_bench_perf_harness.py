"""`gui-bench perf`: the job mix, and both measurements end to end on GUI/Demo-v0 (numbers are
checked for sense, never for speed)."""

from __future__ import annotations

import pytest

from gui_gym.benchmarks.cli import main
from gui_gym.benchmarks.perf.harness import episode_jobs, overhead, throughput
from gui_gym.errors import HarnessError

DEMO = ["demo.press-button", "demo.fill-form", "demo.read-code"]


def test_jobs_cycle_over_the_tasks_with_a_new_seed_per_cycle():
    jobs = episode_jobs(DEMO, 7)
    assert [(j.task_id, j.seed) for j in jobs] == [(t, 0) for t in DEMO] + [(t, 1) for t in DEMO] + [(DEMO[0], 2)]
    with pytest.raises(HarnessError, match="the env has no tasks to measure"):
        episode_jobs([], 3)


def test_worker_counts_are_validated(capsys):
    assert main(["perf", "--env", "GUI/Demo-v0", "--workers", "one"]) == 2
    assert "--workers expects comma-separated counts such as 1,2,4, received 'one'" in capsys.readouterr().err


@pytest.mark.slow
def test_throughput_and_overhead_are_measured_on_real_episodes():
    row = throughput("GUI/Demo-v0", episode_jobs(DEMO, 3), workers=2)
    assert row["episodes"] == row["successes"] == 3 and row["episodes_per_min"] > 0
    cost = overhead("GUI/Demo-v0", episode_jobs(DEMO, 3))
    assert cost["steps"] > 3 and cost["bare_step_s"] > 0 and cost["harness_step_s"] > 0
    assert cost["overhead"] == pytest.approx(cost["harness_step_s"] / cost["bare_step_s"] - 1)
