"""`gui-bench run --ray` on a real two-node Ray cluster (loopback only, see
tests/fakes/ray_cluster.py): LocalWeb with the oracle gives a local run's results; kill -9 of
the driver mid-run and ``--resume`` lose and repeat nothing; the second node's processes
killed mid-run turn its episodes into errors that are retried on the head, and the run
completes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gui_gym.benchmarks.cli import main
from tests.fakes.ray_cluster import cluster  # noqa: F401 - the module's cluster fixture

ray = pytest.importorskip("ray")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]  # a cluster and browsers on a loaded host
GUI_BENCH = str(Path(sys.executable).with_name("gui-bench"))
RUN = ["--env", "GUI/LocalWeb-v0", "--env-arg", 'apps=["admin"]', "--agent", "oracle", "--limit", "3"]


def _results(out: Path) -> dict[str, dict]:
    """The placed episodes' results: a ``.<key>.incoming`` folder is one the driver was writing
    aside when it was killed (not placed, so --resume runs that episode again)."""
    return {p.parent.name: json.loads(p.read_text()) for p in sorted((out / "tasks").glob("[!.]*/result.json"))}


def _start_run(cluster, out: Path, workers: int) -> subprocess.Popen:
    return subprocess.Popen([GUI_BENCH, "run", "--ray", cluster.address, "--workers", str(workers), *RUN,
                             "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for_a_result(out: Path, process: subprocess.Popen, timeout_s: float = 600) -> None:
    deadline = time.monotonic() + timeout_s
    while not _results(out):
        assert process.poll() is None, process.stderr.read().decode()[-3000:]
        assert time.monotonic() < deadline, "no episode finished in time"
        time.sleep(0.2)  # the results folder is the run's only output to watch


def _outcomes(results: dict[str, dict]) -> dict[str, tuple]:
    return {key: (r["success"], r["score"], r["steps"]) for key, r in results.items()}


def test_ray_runs_match_a_local_run_and_survive_a_killed_driver_and_a_lost_node(cluster, tmp_path):
    assert main(["run", *RUN, "--workers", "1", "--out", str(tmp_path / "local")]) == 0
    local = _outcomes(_results(tmp_path / "local"))
    assert len(local) == 3 and all(success for success, _, _ in local.values())

    # kill -9 of the driver mid-run, then --resume: every episode once, none lost, none run twice
    out = tmp_path / "killed"
    driver = _start_run(cluster, out, workers=2)
    _wait_for_a_result(out, driver)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    before = {key: (out / "tasks" / key / "result.json").read_bytes() for key in _results(out)}
    assert main(["run", "--resume", "--ray", cluster.address, "--out", str(out)]) == 0
    after = _results(out)
    assert _outcomes(after) == local
    assert all((out / "tasks" / key / "result.json").read_bytes() == data for key, data in before.items())
    assert all(r["attempt"] == 1 and not r["previous_errors"] for r in after.values())
    assert not list((out / "tasks").glob(".*")), "a folder written aside outlived --resume"
    assert json.loads((out / "summary.json").read_text())["overall"]["success_rate"] == 1.0
    print(f"kill -9 of the driver: {len(before)} of {len(after)} episodes done before it, {len(after) - len(before)} "
          "run by --resume, 0 lost, 0 run twice")  # the counts for the record (pytest -rP shows them)

    # the second node's processes killed mid-run: its episodes are errors, retried on the head
    out = tmp_path / "lost-node"
    run = _start_run(cluster, out, workers=3)  # 2 CPUs per node: at least one actor on the second
    deadline = time.monotonic() + 600
    while not any("EpisodeWorker.run" in title for title in cluster.node2_titles()):  # mid-episode there
        assert run.poll() is None and time.monotonic() < deadline, "no episode ran on the second node"
        time.sleep(0.2)
    cluster.kill_node2()
    assert run.wait(timeout=900) == 0, run.stderr.read().decode()[-3000:]
    results = _results(out)
    assert _outcomes(results) == local
    retried = [r for r in results.values() if r["previous_errors"]]
    assert retried and all("died" in r["previous_errors"][0] and r["attempt"] == 2 for r in retried)
    print(f"second node killed: {len(retried)} of {len(results)} episodes lost with it and retried, "
          f"{len(results)} completed once each")
