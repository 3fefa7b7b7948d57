"""The desktop shells' cost measurement: memory read per process, one real boot of each shell."""

from __future__ import annotations

import os
import subprocess

import pytest

from gui_gym.backends.desktop import gnome
from gui_gym.benchmarks.perf.desktop_shell import boot_once, resident_mib


def test_resident_memory_is_summed_by_command_name():
    children = [subprocess.Popen(["sleep", "30"]) for _ in range(2)]
    try:
        memory = resident_mib([os.getpid(), *(c.pid for c in children), 2 ** 22 + 1])  # the last: no such process
        assert set(memory) == {open(f"/proc/{os.getpid()}/comm").read().strip(), "sleep"}
        assert 0 < memory["sleep"] < 20 and all(mib > 0 for mib in memory.values())
    finally:
        for child in children:
            child.kill()
            child.wait()


@pytest.mark.slow
@pytest.mark.parametrize("shell", [
    "openbox",
    pytest.param("gnome", marks=pytest.mark.skipif(bool(gnome.missing_packages()), reason="GNOME is not installed"))])
def test_one_boot_is_measured_from_start_to_stop(shell):
    measured = boot_once(shell, (800, 600), rest_s=0.5)
    assert measured["boot_s"] > 0 and measured["stop_s"] > 0
    assert "Xvfb" in measured["memory"] and ("gnome-shell" if shell == "gnome" else "openbox") in measured["memory"]
