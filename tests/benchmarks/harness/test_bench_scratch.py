"""Workers' scratch folders: private, one per worker, gone with the run; a killed run's are
removed by the next; a temp path too long for Chromium's socket keeps TMPDIR as it is."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from gui_gym.benchmarks.harness.scratch import SOCKET_PATH_MAX, Scratch


@pytest.fixture()
def system_tmp(monkeypatch):
    folder = Path(tempfile.mkdtemp(prefix="tmp-"))  # short, as /tmp is
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_each_worker_gets_a_private_folder_removed_with_it_and_dead_runs_are_swept(system_tmp):
    base = system_tmp / f"gui-bench-{os.getuid()}"
    base.mkdir(mode=0o700)
    (base / "999999999" / "w0").mkdir(parents=True)  # a run killed by kill -9
    (base / "999999998.1").mkdir()
    (base / str(os.getppid())).mkdir()  # a run still going (our parent process is alive)
    scratch, again = Scratch(), Scratch()  # two runs in one process
    assert sorted(p.name for p in base.iterdir()) == sorted([str(os.getppid()), str(os.getpid()), f"{os.getpid()}.1"])
    assert (scratch.root.name, again.root.name) == (str(os.getpid()), f"{os.getpid()}.1")
    again.close()
    first, second = scratch.worker_dir(0), scratch.worker_dir(1)
    assert first.parent == second.parent == scratch.root and oct(first.stat().st_mode & 0o777) == "0o700"
    (first / "playwright_chromiumdev_profile-x").mkdir()
    Scratch.remove(first)
    assert not first.exists() and second.exists()
    scratch.close()
    assert not scratch.root.exists()


def test_a_temp_path_too_long_for_chromium_leaves_tmpdir_as_it_is(system_tmp, monkeypatch, caplog):
    deep = system_tmp / ("d" * (SOCKET_PATH_MAX - len(str(system_tmp)) - 60))
    deep.mkdir()
    monkeypatch.setenv("TMPDIR", str(deep))
    with caplog.at_level(logging.WARNING, logger="gui_gym.benchmarks.harness.scratch"):
        scratch = Scratch()
    assert scratch.worker_dir(0) is None and "too long for per-worker scratch folders" in caplog.text
    scratch.close()
    assert [p.name for p in (deep / f"gui-bench-{os.getuid()}").iterdir()] == []
