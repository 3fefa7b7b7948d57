"""The verl GPU check's CPU twin: the command a GPU node runs, on the tiny model on the CPU with
one iteration and two cells. It records two real LocalWeb episodes (browser, agent loop,
oracle judge), runs verl's own log-prob and actor-update steps on them in a process of its own
(verl's CPU platform and class-wide model patches last for the process), and prints the table.
The advantages it trained with equal `gui_gym.trainers.page` on the same episodes; the update
moved the LoRA weights."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("transfer_queue", reason="verl's trainer dependencies: scripts/setup.sh installs them")

from gui_gym.errors import UsageError  # noqa: E402
from gui_gym.trainers.page import page_advantages  # noqa: E402
from gui_gym.trainers.rollout import Rollout, Step  # noqa: E402


@pytest.mark.slow  # a browser, two episodes and verl's engine: 50 s on a busy 2-core machine
def test_the_cpu_twin_trains_verls_actor_on_localweb_episodes_with_pages_advantages(tmp_path):
    episodes, report = tmp_path / "episodes.json", tmp_path / "report.json"
    command = [sys.executable, "-m", "gui_gym.benchmarks.perf.gpu_check_verl", "--micro-batches", "1,2",
               "--checkpointing", "on", "--iterations", "1", "--episodes", str(episodes), "--out", str(report)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    table = done.stdout[done.stdout.index("| micro-batch |"):].splitlines()
    assert [line.split("|")[1:3] for line in table[2:4]] == [[" 1 ", " yes "], [" 2 ", " yes "]]
    assert all(line.split("|")[3].strip() == "n/a" for line in table[2:4])  # no accelerator memory on a CPU

    out = json.loads(report.read_text())
    rows = out["rows"]
    assert [(r["micro_batch"], r["checkpointing"]) for r in rows] == [(1, True), (2, True)]
    for row in rows:
        assert row["peak_gib"] is None and row["step_s"] > 0 and row["tokens_per_s"] > 0
        # the update had a gradient and moved every LoRA matrix (B starts at 0; A moves once B has)
        assert row["pg_loss"] != 0.0 and row["grad_norm"] > 0.0
        assert row["changed_parameters"] > 0
    assert rows[0]["tokens"] == rows[1]["tokens"]  # the same episodes in both cells

    # gui_gym.trainers.page on the same episodes (signed spans, the example's lambda, no std)
    fields = out["episodes"]
    rollouts = []
    for extra in fields:
        rollout = Rollout(task_id=extra["task_id"], instruction=extra["instruction"], seed=extra["instance_seed"])
        final = {key: extra[key] for key in ("progress", "score", "subtasks", "subtask_of_step")}
        rollout.steps = [Step(token_ids=(0,), info=final) for _ in extra["step_info"]]
        rollouts.append(rollout)
    assert len({extra["uid"] for extra in fields}) == 1  # one group
    expected = page_advantages(rollouts, lam=0.5, intra_mode="signed", norm_std=False)
    for extra, per_step, got in zip(fields, expected, out["advantages"]):
        want = [per_step[s] if s >= 0 else 0.0 for s in extra["step_index"]]
        assert got == pytest.approx(want, abs=1e-6)
    assert any(value != 0.0 for row in out["advantages"] for value in row)

    # the recorded file replays as the same episodes (what a GPU node without a browser reads)
    from gui_gym.benchmarks.perf.verl_episodes import load_episodes

    outs, uids, max_pixels = load_episodes(episodes)
    assert [o.extra_fields["step_index"] for o in outs] == [extra["step_index"] for extra in fields]
    assert uids == [extra["uid"] for extra in fields] and max_pixels == 112 * 112
    assert all(image.mode == "RGB" for o in outs for image in o.multi_modal_data["images"])

    # a run that reads the file (no browser) and is over its time budget before the first cell skips every cell
    skipped = subprocess.run([*command[:-2], "--budget-s", "0", "--checkpointing", "both"], capture_output=True,
                             text=True, timeout=600)
    assert skipped.returncode == 0, skipped.stderr[-3000:]
    assert "2 episodes of 1 group(s)" in skipped.stdout
    assert skipped.stdout.count("skipped: over the time budget") == 4  # 2 micro-batches x checkpointing off, on


def test_a_file_that_is_not_recorded_episodes_is_refused(tmp_path):
    from gui_gym.benchmarks.perf.verl_episodes import load_episodes

    path = tmp_path / "episodes.json"
    path.write_text(json.dumps({"rows": []}))
    with pytest.raises(UsageError, match="is not a recorded episodes file"):
        load_episodes(path)
