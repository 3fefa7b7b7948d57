"""The sandbox's launcher finds the folders an unprivileged id cannot pass through (every
sandbox start runs the rest of it: the interpreter may live under such a folder), and what it
launches dies with the host process that started it, from before bubblewrap runs."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gui_gym.backends.desktop.launcher import blocking_ancestor
from gui_gym.backends.desktop.sandbox import LAUNCHER
from gui_gym.runtime.processes import running, signal_quietly
from gui_gym.runtime.waiting import wait_until


def test_the_topmost_closed_folder_above_a_path_blocks_it():
    base = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="gui-gym-launcher-"))
    try:
        os.chmod(base, 0o755)
        (base / "locked" / "deeper" / "venv").mkdir(parents=True)
        (base / "open" / "venv").mkdir(parents=True)
        os.chmod(base / "locked", 0o700)
        os.chmod(base / "locked" / "deeper", 0o700)
        assert blocking_ancestor(str(base / "locked" / "deeper" / "venv")) == str(base / "locked")
        assert blocking_ancestor(str(base / "open" / "venv")) is None
        assert blocking_ancestor(str(base / "locked")) is None  # the folder itself is bound, not passed through
    finally:
        shutil.rmtree(base)


HOST = """
import os, shutil, signal, subprocess, sys
from gui_gym.backends.desktop.accounts import id_map
from gui_gym.backends.desktop.sandbox import LAUNCHER
launched, launched_w = os.pipe()
go_r, go = os.pipe()
proc = subprocess.Popen([sys.executable, "-I", "-S", str(LAUNCHER), str(launched_w), str(go_r), str(os.getpid()),
                         "--", shutil.which("sleep"), "600"], pass_fds=(launched_w, go_r), start_new_session=True,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
assert os.read(launched, 1) == b"u"
for name in ("uid_map", "gid_map"):
    with open(f"/proc/{proc.pid}/{name}", "w") as out:
        out.write(id_map(proc.pid))
os.write(go, b"g")
print(proc.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # the host dies right after letting the launcher go on
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="mapping a sandbox's ids takes root")
def test_a_host_killed_as_the_launcher_goes_on_takes_what_it_launched_down():
    """The window bubblewrap's ``--die-with-parent`` leaves open: the host dies after the go and
    before bubblewrap arms it. What the launcher execs (here ``sleep``, which arms nothing) must
    not outlive it, reparented to init."""
    done = subprocess.run([sys.executable, "-c", HOST], capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr
    launched = int(done.stdout.split()[0])
    try:
        assert wait_until(lambda: not running(launched), timeout_s=10), "the launched process outlived its host"
    finally:
        signal_quietly(launched, signal.SIGKILL)


def test_a_launcher_whose_host_is_already_gone_does_not_exec():
    script = f"import sys; sys.path[:0] = [{str(Path(LAUNCHER).parent)!r}]; from launcher import die_with; die_with(1)"
    done = subprocess.run([sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "the host process 1 that started the sandbox is gone" in done.stderr
