"""The worker pool on GUI/Demo-v0: results in order, and every way an episode can go wrong
(a worker that exits, an agent that hangs, a browser that dies, an agent that raises) recorded
as an error apart from failures, retried once, with the run completing; the progress bar."""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from gui_gym.benchmarks.harness.results import Job, ResultsStore
from gui_gym.benchmarks.harness.runner import Progress, RunConfig, Runner
from gui_gym.errors import HarnessError
from gui_gym.runtime.processes import descendants, running
from gui_gym.records import EpisodeResult
from gui_gym.runtime.waiting import wait_until

FLAKY = textwrap.dedent('''
    import os
    import signal
    import threading
    from pathlib import Path

    from gui_gym.agents.oracle import OracleAgent
    from gui_gym.runtime.processes import descendants
    from gui_gym import Action


    KILLED = {"kill-browser": lambda argv: b"chrom" in b" ".join(argv), "kill-driver": lambda argv: b"run-driver" in argv,
              "kill-xvfb": lambda argv: argv[0].endswith(b"Xvfb")}


    def command_line(pid):
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\\0")
        except OSError:
            return [b""]


    class Flaky(OracleAgent):
        """Misbehaves at its first action of each task (a marker file remembers), then solves it.
        Every episode it starts is logged (episodes.log); before a kill, the worker's process tree
        (trees.log)."""

        def __init__(self, marker_dir: str, mode: str, always: bool = False):
            super().__init__()
            self.marker_dir, self.mode, self.always = Path(marker_dir), mode, always

        def reset(self, task_info):
            super().reset(task_info)
            self.marker = self.marker_dir / task_info["task_id"]
            with open(self.marker_dir / "episodes.log", "a") as log:
                log.write(task_info["task_id"] + "\\n")

        def act(self, obs, info):
            if self.always or not self.marker.exists():
                self.marker.touch()
                if self.mode == "exit":
                    os._exit(7)
                if self.mode == "hang":
                    threading.Event().wait()
                if self.mode == "raise":
                    raise RuntimeError("agent bug")
                if self.mode == "wait":
                    return Action.wait(5.0)
                if self.mode.startswith("kill-"):
                    tree = descendants(os.getpid())
                    with open(self.marker_dir / "trees.log", "a") as log:
                        log.write(" ".join(map(str, [os.getpid(), *tree])) + "\\n")
                    if self.mode == "kill-worker":
                        os.kill(os.getpid(), signal.SIGKILL)
                    for pid in tree:
                        if KILLED[self.mode](command_line(pid)):
                            os.kill(pid, signal.SIGKILL)
                    return Action.click(10, 10)
            return super().act(obs, info)
''')
DESKTOP = {"provider": "local", "tasks": "sample", "screen_size": [640, 480], "accessibility": False, "shell": "openbox"}
"""GUI/OSWorld-v0 on the local sandbox, small, on the light desktop and without the accessibility bus."""
DESKTOP_TASK = "sample-os-infeasible-bluetooth"
GUI_BENCH = str(Path(sys.executable).with_name("gui-bench"))


def _agent(tmp_path) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    agent_file = tmp_path / "flaky.py"
    agent_file.write_text(FLAKY)
    (tmp_path / "markers").mkdir()
    return agent_file


def _run(tmp_path, mode, tasks, always=False, env_id="GUI/Demo-v0", **settings):
    agent_file = _agent(tmp_path)
    config = RunConfig(env_id, tmp_path / "out", agent=str(agent_file),
                       agent_kwargs={"marker_dir": str(tmp_path / "markers"), "mode": mode, "always": always},
                       **settings)
    finished = []
    results = Runner(config, [Job(t, 0) for t in tasks], on_result=finished.append).run()
    assert finished == results
    assert sorted(r.task_id for r in results) == sorted(tasks), "an episode was lost or recorded twice"
    return {r.task_id: r for r in results}


def _episodes(tmp_path) -> list[str]:
    """Every episode the agent started, in order."""
    return (tmp_path / "markers" / "episodes.log").read_text().split()


def _killed_trees(tmp_path) -> list[int]:
    """The worker processes and everything under them, as they were just before each kill."""
    return [int(pid) for pid in (tmp_path / "markers" / "trees.log").read_text().split()]


def _all_gone(pids: list[int]) -> bool:
    return wait_until(lambda: not any(running(pid) for pid in pids), timeout_s=30)


@pytest.mark.slow
def test_oracle_episodes_run_on_a_pool_and_are_all_recorded(tmp_path):
    tasks = ["demo.press-button", "demo.fill-form", "demo.read-code"]
    config = RunConfig("GUI/Demo-v0", tmp_path, agent="oracle", workers=2)
    results = Runner(config, [Job(t, 0, {"domain": "demo"}) for t in tasks]).run()
    assert sorted(r.task_id for r in results) == sorted(tasks)
    assert all(r.success and r.attempt == 1 and r.meta == {"domain": "demo"} for r in results)
    store = ResultsStore(tmp_path)
    assert store.pending([Job(t, 0) for t in tasks], retries=1) == []
    assert all((tmp_path / "mind2web" / f"{t}__seed0" / "result.json").is_file() for t in tasks)


@pytest.mark.slow
def test_a_worker_that_exits_mid_episode_is_replaced_and_its_episode_retried(tmp_path):
    results = _run(tmp_path, "exit", ["demo.press-button", "demo.read-code"], workers=2)
    for result in results.values():
        assert result.success and result.attempt == 2
        assert result.previous_errors == ["worker process died (exit code 7)"]


@pytest.mark.slow
def test_an_episode_that_errors_twice_is_an_error_not_a_failure(tmp_path):
    results = _run(tmp_path, "raise", ["demo.read-code"], always=True, retries=1)
    result = results["demo.read-code"]
    assert result.outcome == "error" and result.error_kind == "agent" and result.attempt == 2
    assert result.error == "RuntimeError: agent bug" and result.previous_errors == ["RuntimeError: agent bug"]


@pytest.mark.slow
def test_a_hung_episode_is_killed_at_its_limit_and_retried_and_leaves_no_files(tmp_path, monkeypatch):
    system_tmp = Path(tempfile.mkdtemp(prefix="tmp-"))  # the run's /tmp; a short path: Chromium puts a socket there
    monkeypatch.setenv("TMPDIR", str(system_tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)
    base = system_tmp / f"gui-bench-{os.getuid()}"
    (base / "999999999" / "w0" / "playwright_chromiumdev_profile-x").mkdir(parents=True)  # a kill -9 run
    try:
        # the limit is waited out once: the agent's half of it long enough for the retry (a
        # browser launch and a short oracle episode) on a loaded machine, no longer
        result = _run(tmp_path / "run", "hang", ["demo.read-code"], episode_timeout_s=60)["demo.read-code"]
        assert result.success and result.attempt == 2, result
        assert result.previous_errors == ["episode exceeded its 60 s wall-clock limit; the worker was killed"]
        # the killed worker's browser profile (and everything else it wrote) went with its folder
        assert list(system_tmp.rglob("*")) == [base]
    finally:
        shutil.rmtree(system_tmp, ignore_errors=True)


@pytest.mark.slow
def test_an_agent_that_waits_out_the_clock_fails_its_task_and_is_no_error(tmp_path):
    """Legal waits (here 5 s a step, 10 steps) add up past the episode's wall-clock limit (30 s):
    the agent's own time, so the episode is truncated at the agent's limit (15 s) and scored, a
    failure; it was killed at the limit and recorded as an error."""
    assert RunConfig("GUI/Demo-v0", tmp_path, episode_timeout_s=30).agent_time_limit_s == 15
    result = _run(tmp_path / "run", "wait", ["demo.read-code"], always=True, episode_timeout_s=30,
                  retries=0)["demo.read-code"]
    assert result.outcome == "failure" and result.truncated and not result.success, result.error
    assert result.error is None and result.attempt == 1 and result.score == 0.0
    assert 1 <= result.steps < 10  # stopped by the clock, not by the step limit


@pytest.mark.slow
def test_a_dead_browser_is_an_infra_error_and_the_env_recovers_for_the_retry(tmp_path):
    results = _run(tmp_path / "once", "kill-browser", ["demo.press-button", "demo.read-code"], retries=1)
    assert all(r.success and r.attempt == 2 for r in results.values())
    assert sorted(_episodes(tmp_path / "once")) == sorted(["demo.press-button", "demo.read-code"] * 2)
    assert _all_gone(_killed_trees(tmp_path / "once")), "the run left processes behind"
    result = _run(tmp_path / "final", "kill-browser", ["demo.press-button"], retries=0)["demo.press-button"]
    assert result.outcome == "error" and result.error_kind == "infra" and result.truncated


@pytest.mark.slow
@pytest.mark.parametrize("mode, error", [
    ("kill-worker", "worker process died (exit code -9)"),
    ("kill-driver", "BrowserBackend"),
])
def test_kill_9_mid_episode_is_an_error_retried_once_losing_nothing_and_leaving_nothing(tmp_path, mode, error):
    tasks = ["demo.press-button", "demo.read-code"]
    results = _run(tmp_path, mode, tasks, retries=1)
    for result in results.values():
        assert result.success and result.attempt == 2, result
        assert len(result.previous_errors) == 1 and error in result.previous_errors[0]
    assert sorted(_episodes(tmp_path)) == sorted(tasks * 2), "each episode runs twice: the killed one and its retry"
    assert _all_gone(_killed_trees(tmp_path)), "the run left processes behind"


def _x_server(pids: list[int]) -> bool:
    return any(Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"Xvfb")
               for pid in pids if running(pid))


@pytest.mark.slow
def test_kill_9_of_the_desktops_x_server_mid_episode_is_an_infra_error_then_retried(tmp_path):
    result = _run(tmp_path, "kill-xvfb", [DESKTOP_TASK], env_id="GUI/OSWorld-v0", env_kwargs=DESKTOP, retries=1)[DESKTOP_TASK]
    assert result.success and result.attempt == 2, result
    assert len(result.previous_errors) == 1 and "DesktopBackend" in result.previous_errors[0]
    assert _episodes(tmp_path) == [DESKTOP_TASK, DESKTOP_TASK]
    tree = _killed_trees(tmp_path)
    assert _x_server(tree) is False and _all_gone(tree), "the run left processes behind"


@pytest.mark.slow
def test_kill_9_of_the_run_mid_episode_takes_the_desktop_sandbox_down_with_it(tmp_path):
    agent_file = _agent(tmp_path)
    command = [GUI_BENCH, "run", "--env", "GUI/OSWorld-v0", *(f"--env-arg={k}={v}" for k, v in
                                                                 (("provider", "local"), ("tasks", "sample"),
                                                                  ("screen_size", "[640,480]"), ("accessibility", "false"),
                                                                  ("shell", "openbox"))),
               "--tasks", DESKTOP_TASK, "--agent", str(agent_file), "--agent-arg", f"marker_dir={tmp_path / 'markers'}",
               "--agent-arg", "mode=hang", "--out", str(tmp_path / "out")]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: (tmp_path / "markers" / DESKTOP_TASK).exists(), timeout_s=240), "no episode began"
        tree = descendants(run.pid)
        assert _x_server(tree), "the episode runs on a desktop"
        os.kill(run.pid, signal.SIGKILL)
        run.wait(timeout=10)
    finally:
        if run.poll() is None:
            run.kill()
    assert _all_gone(tree), "the worker, its sandbox or its X server outlived the killed run"


def test_an_env_that_cannot_be_built_stops_the_run_with_its_reason(tmp_path):
    config = RunConfig("GUI/Demo-v0", tmp_path, agent="oracle", env_kwargs={"no_such_setting": 1})
    with pytest.raises(HarnessError, match="a worker could not build the env or the agent: TypeError: .*no_such_setting"):
        Runner(config, [Job("demo.read-code", 0)]).run()


def test_a_worker_whose_first_reset_raised_runs_its_next_episode_unharmed(tmp_path):
    # one worker: the failed reset is its env's first (Gymnasium's env checker would fail the next first step)
    config = RunConfig("GUI/Demo-v0", tmp_path, agent="oracle", retries=0)
    results = {r.task_id: r for r in Runner(config, [Job("demo.no-such-task", 0), Job("demo.read-code", 0)]).run()}
    assert results["demo.no-such-task"].error_kind == "env" and "unknown task id" in results["demo.no-such-task"].error
    assert results["demo.read-code"].success, results["demo.read-code"].error


def test_run_settings_are_validated(tmp_path):
    with pytest.raises(HarnessError, match="workers must be >= 1, received 0"):
        RunConfig("GUI/Demo-v0", tmp_path, workers=0)
    with pytest.raises(HarnessError, match="timeouts must be > 0 s"):
        RunConfig("GUI/Demo-v0", tmp_path, episode_timeout_s=0)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_shows_success_so_far_errors_and_eta():
    stream = _Terminal()
    progress = Progress(4, previous=[EpisodeResult("a", success=True)], stream=stream)
    progress.record(EpisodeResult("b", key="b"))
    progress.tick(2)
    progress.record(EpisodeResult("c", key="c", error="worker process died"))
    progress.close()
    last = stream.getvalue().split("\r")[-1]
    assert last.startswith("\x1b[2K[##################......] 3/4  success 1/2 (50%)  errors 1  running 2")
    assert "ep/min  ETA " in last and "ETA --" not in last
    log = io.StringIO()
    quiet = Progress(2, stream=log)
    quiet.record(EpisodeResult("a", key="a__seed0", success=True))
    quiet.record(EpisodeResult("b", key="b__seed0", error="boom"))
    assert log.getvalue().splitlines()[0].startswith("[1/2] ok a__seed0  success 1/1 (100%)")
    assert log.getvalue().splitlines()[1].startswith("[2/2] ERROR b__seed0 (boom)")
