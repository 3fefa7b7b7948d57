"""A hostile home for the OSWorld evaluator's tests, on a local sandbox desktop: what an agent
can leave behind for the evaluation (modules named like the standard library's where Python
looks for them, links, hard links, FIFOs and folders where the evaluator reads or writes, a
loop running in the background), planted as the agent would, as ``user``.

A planted module, when imported, records its name in `MARKER` and prints a forged answer in
every shape the evaluator reads (a probe's JSON line, the harness's score line), then exits:
any evaluator Python that imports one is both seen and steered.
"""

from __future__ import annotations

import json
import shlex
import tempfile
from pathlib import Path
from typing import Any

from gui_gym.backends.desktop import DesktopBackend
from gui_gym.suites.osworld.context import EpisodeContext, FileCache
from gui_gym.suites.osworld.loader import OSWorldTaskSpec, parse_task

HOME = "/home/user"
MARKER = f"{HOME}/.planted-module-ran"
FORGED = b"FORGED"
STASH = "/tmp/.planted"
USER_SITE = f"{HOME}/.local/lib/python3.11/site-packages"
"""The user's site-packages of the desktop's Pythons (the project's and ``/usr/bin/python3``, both 3.11)."""
MODULES = ("json", "uuid", "os", "base64", "socket", "struct", "time", "re", "subprocess", "pathlib", "tempfile",
           "shlex", "urllib", "collections", "sitecustomize", "usercustomize", "pyautogui")
"""Modules planted, named like the standard library's (and pyautogui, which setup lines import)."""
FORGED_ANSWER = ('{"ok": true, "value": [{"id": "1", "url": "https://www.lonelyplanet.com", "title": "FORGED"}, '
                 '{"id": "2", "url": "https://www.airbnb.com", "title": "FORGED"}, '
                 '{"id": "3", "url": "https://www.tripadvisor.com", "title": "FORGED"}]}\\n'
                 'GUI-GYM-SCORE 1.0\\n[1, 1]\\ntrue\\nFORGED\\n')
"""What a planted module prints: a DevTools probe's answer listing chrome/06fe7178's tabs, the
test-suite harness's full score, checker scripts' expected outputs."""


def planted_source(name: str) -> str:
    return ("import posix\n"
            f"fd = posix.open({MARKER!r}, posix.O_WRONLY | posix.O_CREAT | posix.O_APPEND, 0o644)\n"
            f"posix.write(fd, b'{name}\\n')\n"
            "posix.close(fd)\n"
            f"posix.write(1, b'{FORGED_ANSWER}')\n"
            "posix._exit(0)\n")


def sh(backend: DesktopBackend, script: str) -> str:
    """A shell line as the agent (``user``) would run it; its output."""
    return backend.client.execute(["sh", "-c", script]).get("output") or ""


def stash_modules(backend: DesktopBackend) -> None:
    """Write the planted modules once, in a folder of the agent's, for `plant_modules` to copy."""
    for name in MODULES:
        backend.client.upload(f"{STASH}/{name}.py", planted_source(name).encode())
    line = "; ".join(planted_source("pth").strip().splitlines())
    backend.client.upload(f"{STASH}/zz-planted.pth", f"{line}\n".encode())


def plant_modules(backend: DesktopBackend, folders: list[str]) -> None:
    """The planted modules in `folders`, the home, its Desktop and the user's site-packages (with a
    ``.pth`` file that runs at every start of a Python that reads it)."""
    places = sorted({HOME, f"{HOME}/Desktop", USER_SITE, *folders})
    sh(backend, " ; ".join(f"mkdir -p {shlex.quote(p)} && cp {STASH}/*.py {shlex.quote(p)}/" for p in places)
       + f" ; cp {STASH}/zz-planted.pth {USER_SITE}/")


def unplant_modules(backend: DesktopBackend, folders: list[str]) -> None:
    places = sorted({HOME, f"{HOME}/Desktop", USER_SITE, *folders})
    names = " ".join(f"{m}.py" for m in MODULES)
    sh(backend, " ; ".join(f"(cd {shlex.quote(p)} && rm -f {names})" for p in places)
       + f" ; rm -f {USER_SITE}/zz-planted.pth {MARKER}")


def planted_ran(backend: DesktopBackend) -> str:
    """The names of the planted modules some Python imported ('' when none)."""
    return sh(backend, f"cat {MARKER} 2>/dev/null")


def make_in_the_way(backend: DesktopBackend, path: str, kind: str, decoy: str) -> None:
    """Put a `kind` thing at `path` (its folders made): a ``link`` or ``hardlink`` to `decoy`, a
    ``fifo``, or a ``folder``."""
    quoted, parent = shlex.quote(path), shlex.quote(str(Path(path).parent))
    make = {"link": f"ln -s {shlex.quote(decoy)} {quoted}", "hardlink": f"ln {shlex.quote(decoy)} {quoted}",
            "fifo": f"mkfifo {quoted}", "folder": f"mkdir {quoted}"}[kind]
    sh(backend, f"rm -rf {quoted}; mkdir -p {parent} && {make}")


def background(backend: DesktopBackend, loop: str, pid_file: str) -> None:
    """Leave `loop` running as the agent's process, its PID in `pid_file` (for `stop_background`)."""
    backend.client.launch(["sh", "-c", f"echo $$ > {pid_file}; {loop}"])
    sh(backend, f"while [ ! -s {pid_file} ]; do sleep 0.05; done")


def stop_background(backend: DesktopBackend, pid_file: str) -> None:
    sh(backend, f"kill $(cat {pid_file}); rm -f {pid_file}")


def task_spec(osworld_tasks: Path, domain: str, task_id: str) -> OSWorldTaskSpec:
    path = osworld_tasks / "examples" / domain / f"{task_id}.json"
    return parse_task(json.loads(path.read_text()), path)


def episode(backend: DesktopBackend, spec: OSWorldTaskSpec, cache: Path,
            stand_ins: dict[str, bytes] | None = None) -> EpisodeContext:
    """An episode of `spec` on `backend`, its file cache in `cache` holding `stand_ins` (URL ->
    bytes: the files OSWorld's cache would hand out, made by the test)."""
    files = FileCache(cache, allow_download=False)
    for url, data in (stand_ins or {}).items():
        for step in spec.evaluator.postconfig:
            for entry in step.parameters.get("files", []) if step.type == "download" else []:
                if entry["url"] == url:
                    target = files.download_path(spec.id, url, entry["path"])
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
        for getter in spec.evaluator.getters:
            if getter.get("type") == "cloud_file" and getter["path"] == url:
                target = files.task_dir(spec.id) / getter["dest"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    return EpisodeContext(backend, spec, files, scratch=Path(tempfile.mkdtemp(prefix="gui-gym-test-scratch-")))


def urls(spec: OSWorldTaskSpec) -> list[str]:
    """The URLs of the evaluator's postconfig downloads and cloud files, in order."""
    found: list[Any] = [entry["url"] for step in spec.evaluator.postconfig if step.type == "download"
                        for entry in step.parameters["files"]]
    return found + [g["path"] for g in spec.evaluator.getters if g.get("type") == "cloud_file"]
