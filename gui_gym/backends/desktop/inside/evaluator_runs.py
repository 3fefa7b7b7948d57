"""Python runs of the evaluator's own on the desktop, out of the agent's reach (our server's
``/gui-gym/run_python``): a task's test suite run against the agent's code, as OSWorld's
``check_python_file_by_test_suite`` runs it.

Commands of ``/execute`` run as ``user``, beside whatever the agent left running: a process of
the agent's could drop a module into their folder, or trace them and write to their
descriptors. A run here is apart from all of it:

- its files are in a fresh folder that the server makes and owns, which only the evaluator's
  own id (`accounts.EVALUATOR_ID`) may enter: ``user`` cannot read, write or replace anything
  in it;
- the script runs as that id, so no process of the agent's can trace it, signal it or open its
  descriptors (``/proc/<pid>/fd``), in isolated Python (``-I``: no ``PYTHON*`` variable, no
  user site-packages, neither the working folder nor the script's folder on the import path),
  with the folder as its working folder;
- it answers on a pipe of its own (its descriptor number is its second argument), not on its
  standard output, which the code it runs prints to;
- when it is done, or past its time, every process of that id is killed.

What it runs imports the files it was given, the task's and the agent's (that is the metric);
code of the agent's running in the same interpreter can do what the interpreter can, so it
could write to the pipe itself, as in OSWorld it could rewrite the test. What is closed is
every way in from outside the run.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from gui_gym.backends.desktop.accounts import EVALUATOR_ID
from gui_gym.runtime.processes import signal_quietly

RESULT_BYTES = 1 << 16
"""The most of the answer kept (the pipe's buffer: a run that writes more waits, then is killed)."""
OUTPUT_CHARS = 4000
"""How much of the run's standard output and error the reply keeps (the end)."""


def run_python(session, files: dict[str, bytes], script: str, arguments: list[str], timeout_s: float) -> dict:
    """Run ``python -I FOLDER/SCRIPT FOLDER RESULT_FD ARGUMENTS...`` in a fresh folder holding
    `files`, as the evaluator's id: ``{returncode, output, error, result}``, `result` what it
    wrote on the pipe. ValueError for a file name that is not a plain name."""
    for name in files:
        if not name or "/" in name or name in (".", ".."):
            raise ValueError(f"expected plain file names, received {name!r}")
    if script not in files:
        raise ValueError(f"the script {script!r} is not among the files")
    evaluator = session.evaluator_user
    folder = Path(tempfile.mkdtemp(prefix="gui-gym-eval-", dir="/tmp"))
    read_fd, write_fd = os.pipe()
    try:
        for name, data in files.items():
            (folder / name).write_bytes(data)
            if evaluator is not None:
                os.chown(folder / name, 0, evaluator)
                os.chmod(folder / name, 0o640)
        if evaluator is not None:
            os.chown(folder, 0, evaluator)
            os.chmod(folder, 0o770)  # the server's, open to the evaluator's group only
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(
                [sys.executable, "-I", str(folder / script), str(folder), str(write_fd), *arguments],
                cwd=folder, env={**session.env, "HOME": str(folder)}, stdin=subprocess.DEVNULL, stdout=out,
                stderr=err, pass_fds=(write_fd,), start_new_session=True, **session.as_user(evaluator))
            os.close(write_fd)
            write_fd = -1
            try:
                returncode = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                returncode = None
            finally:
                _end(proc.pid, evaluator)
                proc.wait()
            os.set_blocking(read_fd, False)
            try:
                result = os.read(read_fd, RESULT_BYTES)
            except BlockingIOError:
                result = b""
            return {"returncode": returncode, "output": _tail(out), "error": _tail(err),
                    "result": result.decode(errors="replace")}
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)
        shutil.rmtree(folder, ignore_errors=True)


def _end(pid: int, uid: int | None) -> None:
    """Kill the run's process group and, in the sandbox, every process of the evaluator's id
    (one that left the group too)."""
    signal_quietly(pid, signal.SIGKILL, group=True)
    if uid is None:
        return
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/status") as status:
                    real = next(line.split()[1] for line in status if line.startswith("Uid:"))
                if int(real) == uid:
                    os.kill(int(entry), signal.SIGKILL)
            except (FileNotFoundError, ProcessLookupError, StopIteration):
                continue  # gone meanwhile


def _tail(file) -> str:
    file.seek(0, os.SEEK_END)
    file.seek(max(0, file.tell() - OUTPUT_CHARS * 4))
    return file.read().decode(errors="replace")[-OUTPUT_CHARS:]
