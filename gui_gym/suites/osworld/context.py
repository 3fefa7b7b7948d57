"""What setup steps and getters share in one episode: the desktop, the task, a per-episode
scratch folder, and the file cache for the files OSWorld tasks download.

The cache uses OSWorld's own layout, so an existing OSWorld ``cache/`` folder can be reused
as is: ``<cache>/<task id>/<uuid5(url)>_<file name>`` for setup downloads and
``<cache>/<task id>/<dest>`` for ``cloud_file`` getters. A file missing from the cache is
downloaded when downloads are allowed; otherwise the error names the URL and the path where
the file is expected.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tempfile
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from gui_gym.errors import LimitExceededError, MissingResourceError
from gui_gym.runtime.bounded_call import Bounds, call_bounded
from gui_gym.runtime.waiting import retry
from gui_gym.suites.osworld.loader import OSWorldTaskSpec

DEFAULT_CACHE_DIR = Path(os.environ.get("GUI_GYM_OSWORLD_CACHE", Path.home() / ".cache" / "gui-gym" / "osworld"))
DOWNLOAD_TIMEOUT_S = 120.0
PYTHON_TIMEOUT_S = 300.0
DESKTOP_PYTHON = ("env", "-C", "/", "python3", "-I")
"""How the evaluator runs Python code of its own on the desktop: isolated (no ``PYTHON*``
variable, no user site-packages, not the working folder on the import path, so no module the
agent left in its home is imported), from a working folder the agent does not own."""


@dataclass
class FileCache:
    """Files of OSWorld tasks on this machine (see the module docstring for the layout)."""

    root: Path = DEFAULT_CACHE_DIR
    allow_download: bool = True

    def task_dir(self, task_id: str) -> Path:
        return Path(self.root) / task_id

    def download_path(self, task_id: str, url: str, vm_path: str) -> Path:
        return self.task_dir(task_id) / f"{uuid.uuid5(uuid.NAMESPACE_URL, url)}_{os.path.basename(vm_path)}"

    def fetch(self, url: str, path: Path) -> Path:
        """`path`, downloading `url` there first when it is not cached yet."""
        if path.is_file():
            return path
        if not self.allow_download:
            raise MissingResourceError(f"{url} is not in the OSWorld file cache and downloads are off; "
                                       f"put the file at {path} (or allow downloads)")
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + f".part-{uuid.uuid4().hex}")
        try:
            retry(lambda: _download(url, partial), attempts=3, retry_on=(OSError,), base_delay_s=1.0)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise MissingResourceError(f"cannot download {url} ({exc}); without internet, put the file at "
                                       f"{path}") from exc
        os.replace(partial, path)
        return path


def _download(url: str, target: Path) -> None:
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response, open(target, "wb") as out:
        shutil.copyfileobj(response, out)


@dataclass(frozen=True)
class EvaluationLimits:
    """Bounds on the evaluator's work on what the agent made (its files are hostile input):
    past one, the task scores 0 with a warning (docs/security.md, "The OSWorld evaluator")."""

    max_file_bytes: int = 100 << 20
    """The largest desktop file a getter copies out (metrics parse it in a bounded worker)."""
    max_host_parse_bytes: int = 16 << 20
    """The most a getter reads into the host's memory in one call, all files together (Chrome's
    profile files, the ``.desktop`` files of the desktop, small by nature): a file reached by
    several names (hard links) counts at each. Their parse runs under ``work``."""
    max_getter_files: int = 1_000
    """The most desktop files one getter call reads (each is a round trip to the desktop)."""
    max_listing_bytes: int = 1 << 20
    """The largest folder listing a getter reads (JSON parsed on the host: ~25k entries)."""
    work: Bounds = Bounds()
    """Memory and time of each metric call, and of a getter's parse of an agent's file."""


@dataclass
class EpisodeContext:
    """One episode of one task on one desktop."""

    backend: Any
    spec: OSWorldTaskSpec
    cache: FileCache
    client_password: str = "password"
    limits: EvaluationLimits = EvaluationLimits()
    scratch: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="gui-gym-osworld-")))
    held: dict[str, Path] = field(default_factory=dict)
    """Desktop path -> host file, for the files the evaluation keeps on the host instead of
    writing them to the desktop (`held_files`): getters read them from here."""
    _home: str | None = field(default=None, init=False, repr=False)

    @property
    def client(self):
        return self.backend.client

    @property
    def screen_size(self) -> tuple[int, int]:
        return self.backend.screen_size

    @property
    def home(self) -> str:
        """The desktop user's home folder, as the desktop's Python expands ``~`` (OSWorld asks
        the VM each time; the answer is kept for the episode)."""
        if self._home is None:
            result = self.desktop_python("import os; print(os.path.expanduser('~'))")
            self._home = (result.get("output") or "").strip() or "/home/user"
        return self._home

    @property
    def task_cache(self) -> Path:
        return self.cache.task_dir(self.spec.id)

    def local_path(self, path: str) -> Path:
        """A host path from a task file: relative paths are relative to the task file."""
        candidate = Path(path).expanduser()
        return candidate if candidate.is_absolute() else self.spec.folder / candidate

    def desktop_path(self, path: str) -> str:
        """A desktop path as its server resolves it: ``~`` is the home, a relative path is from
        the home, ``.`` and ``..`` by name."""
        if path == "~" or path.startswith("~/"):
            path = self.home + path[1:]
        return posixpath.normpath(posixpath.join(self.home, path))

    def get_file(self, path: str, *, parsed_on_host: bool = False) -> bytes | None:
        """A desktop file's bytes (None when there is no such file), refused with
        LimitExceededError past `limits` (``max_host_parse_bytes`` for a file the caller holds
        in memory to parse): the agent may have made it any size. A file the evaluation keeps on
        the host (`held`) is read from there."""
        cap = self.limits.max_host_parse_bytes if parsed_on_host else self.limits.max_file_bytes
        if self.held and self.desktop_path(path) in self.held:
            return self.held[self.desktop_path(path)].read_bytes()
        return self.client.get_file(path, max_bytes=cap)

    def get_files(self, paths: Sequence[str]) -> dict[str, bytes | None]:
        """Several desktop files for one getter call to hold in memory (path -> bytes, None
        when missing), bounded together: at most ``max_getter_files`` files of
        ``max_host_parse_bytes`` in all (LimitExceededError past either)."""
        limits = self.limits
        if len(paths) > limits.max_getter_files:
            raise LimitExceededError(f"{len(paths)} files to read, over the {limits.max_getter_files} one getter reads")
        found: dict[str, bytes | None] = {}
        left = limits.max_host_parse_bytes
        for path in paths:
            try:
                found[path] = data = self.client.get_file(path, max_bytes=left)
            except LimitExceededError as exc:
                raise LimitExceededError(f"{path}: the files one getter reads are over {limits.max_host_parse_bytes} "
                                         f"bytes in all ({exc})") from None
            left -= len(data or b"")
        return found

    def list_directory(self, path: str) -> dict | None:
        """The desktop folder's tree as OSWorld's server gives it (None when it is not a
        folder), refused with LimitExceededError past ``max_listing_bytes``."""
        return self.client.list_directory(path, max_bytes=self.limits.max_listing_bytes)

    def begin_evaluation(self) -> list[dict]:
        """The agent is done. On our desktop its leftover processes stop, and what the evaluation
        then runs and writes is out of their reach (`ServerClient.begin_evaluation`): the
        processes stopped. An OSWorld VM has no such step (none)."""
        return self.client.begin_evaluation() if "evaluation" in self.client.extensions else []

    def replaced_files(self) -> list[str]:
        """The files the evaluation wrote on our desktop whose name something removed, moved or
        replaced since (`ServerClient.replaced_files`); none on an OSWorld VM, which cannot tell."""
        return self.client.replaced_files() if "evaluation" in self.client.extensions else []

    def bounded(self, target: str, *args: Any) -> Any:
        """``module:function(*args)`` on agent-made content, in a worker under ``limits.work``
        (`call_bounded`): LimitExceededError past a bound, CallFailed when it raised."""
        return call_bounded(target, args, self.limits.work)

    def desktop_python(self, code: str, *arguments: str, timeout_s: float = 120.0, setup: bool = False) -> dict:
        """Run Python code of the evaluator's own on the desktop (`DESKTOP_PYTHON`): the
        ``/execute`` reply (``/setup/execute`` for a setup step)."""
        return self.client.execute([*DESKTOP_PYTHON, "-c", code, *arguments], timeout_s=timeout_s, setup=setup)

    def run_python(self, files: dict[str, bytes], arguments: list[str], timeout_s: float = PYTHON_TIMEOUT_S) -> str:
        """Run ``harness.py`` (one of `files`) in a fresh desktop folder holding `files`, as
        ``python -I harness.py FOLDER RESULT_FD ARGUMENTS...``: what it wrote on RESULT_FD
        (metrics that run task code use this, so that the agent's code never runs on this
        machine). Our desktop runs it out of the agent's reach, in a folder and under an id of
        the evaluator's own, answering on a pipe (`evaluator_runs`); an OSWorld VM has no such
        run, so there it runs as its user in a fresh ``/tmp`` folder and answers on its
        standard output (RESULT_FD 1), which the VM's user can reach as OSWorld's own can."""
        if "run_python" in self.client.extensions:
            return self.client.run_python(files, "harness.py", arguments, timeout_s)["result"]
        folder = f"/tmp/gui-gym-run-{uuid.uuid4().hex}"
        for name, data in files.items():
            self.client.upload(f"{folder}/{name}", data)
        result = self.client.execute(["python3", "-I", f"{folder}/harness.py", folder, "1", *arguments],
                                     timeout_s=timeout_s)
        return result.get("output") or ""

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)
