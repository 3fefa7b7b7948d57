"""`bounded_run.run`: a command's output kept within a size, the command killed past it, and a
command past its time reported with what it printed, as `subprocess.run` reports it."""

from __future__ import annotations

import os
import sys

import pytest

from gui_gym.backends.desktop.inside import bounded_run
from gui_gym.runtime.processes import running
from gui_gym.runtime.waiting import wait_until


def test_a_command_within_the_bound_gives_its_output_and_status():
    done = bounded_run.run([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"],
                           max_bytes=1 << 20, timeout_s=30)
    assert (done.returncode, done.stdout, done.stderr, done.timed_out) == (3, b"out\n", b"err\n", False)


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_command_that_prints_past_the_bound_is_killed_and_refused(tmp_path, stream):
    """``yes`` prints forever: before, its output grew in memory until the timeout; now it is cut
    at the bound and the command no longer runs."""
    pid_file = tmp_path / "pid"
    redirect = "" if stream == "stdout" else "1>&2"
    with pytest.raises(bounded_run.OutputTooLarge, match="more than the 100000 bytes allowed"):
        bounded_run.run(["sh", "-c", f"echo $$ > {pid_file}; exec yes {redirect}"], max_bytes=100_000, timeout_s=30)
    assert wait_until(lambda: not running(int(pid_file.read_text())), 5)


def test_a_command_past_its_time_is_killed_with_what_it_printed(tmp_path):
    pid_file = tmp_path / "pid"
    done = bounded_run.run(["sh", "-c", f"echo $$ > {pid_file}; echo started; exec sleep 60"], max_bytes=1000,
                           timeout_s=1)
    assert (done.timed_out, done.returncode, done.stdout) == (True, None, b"started\n")
    assert wait_until(lambda: not running(int(pid_file.read_text())), 5)


def test_stdin_comes_from_the_file_given(tmp_path):
    with open(tmp_path / "in", "w+b") as source:
        source.write(b"data")
        source.seek(0)
        done = bounded_run.run(["cat"], stdin=source, max_bytes=100, timeout_s=30)
    assert done.stdout == b"data" and os.path.exists(tmp_path / "in")
    assert bounded_run.run(["cat"], max_bytes=100, timeout_s=30).stdout == b""  # no input: /dev/null
