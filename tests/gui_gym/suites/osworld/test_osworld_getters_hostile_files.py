"""The family test of the getters that parse a file the agent controls: on a real local
desktop, a hostile file where the task's getter reads (huge, sparse, a zip bomb, a recursive
SQL view, rows made on the fly, deep nesting, many names for one file) scores as the untouched
home does, the host process grows by at most `HOST_GROWTH_MIB` while it is read, and no more
is written to the host's disk than for the untouched home.

Every getter type of the OSWorld-Verified tasks that parses an agent's file on the host side
is here, each on one of the real tasks that use it (its evaluator as the task file has it,
less the postconfig: it restarts Chrome, which rewrites its profile, and what is attacked here
is the reading of what the agent left). The tasks' own files cannot be downloaded here: the
test makes stand-ins (an untouched presentation, the expected recording and image).
`HOSTILE` lists the attacks by getter; `python -m tests.gui_gym.suites.osworld.
test_osworld_getters_hostile_files` prints each one's figures (score, growth, seconds).
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import sqlite3
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Callable

import pytest

from gui_gym.backends.desktop import DesktopBackend, DesktopConfig
from gui_gym.errors import LimitExceededError
from gui_gym.suites.osworld.context import EpisodeContext, FileCache
from gui_gym.suites.osworld.evaluator import evaluate
from gui_gym.suites.osworld.getters import get_getter
from gui_gym.suites.osworld.loader import load_task_file

HOST_GROWTH_MIB = 96
"""What reading one hostile file may add to the host's peak memory (the 16 MiB a getter
holds, the answer of the bounded worker, and the evaluator's own work)."""
HOME = "/home/user"
PROFILE = f"{HOME}/.config/google-chrome/Default"
Plant = Callable[[DesktopBackend], None]


# ---- what the agent leaves ----------------------------------------------------------------------

def shell(backend: DesktopBackend, script: str) -> None:
    result = backend.client.execute(["sh", "-c", script], timeout_s=300)
    assert result.get("returncode") == 0, result


def upload(path: str, data: bytes | Callable[[], bytes]) -> Plant:
    return lambda backend: backend.client.upload(path, data() if callable(data) else data)


def sparse(path: str, size: str) -> Plant:
    """A file of `size` (``truncate``) that takes no room: read, it is all zeros."""
    return lambda backend: shell(backend, f"mkdir -p '{os.path.dirname(path)}' && truncate -s {size} '{path}'")


def deep_json() -> bytes:
    return b"[" * 1_000_000


def wide_json() -> bytes:
    """4M empty lists: 12 MB of JSON (under the 16 MiB a getter reads), ~280 MiB to parse."""
    return b"[" + b"[]," * 4_000_000 + b"[]]"


def sqlite_file(script: str) -> Callable[[], bytes]:
    def build() -> bytes:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "db"
            db = sqlite3.connect(path)
            db.executescript(script)
            db.close()
            return path.read_bytes()
    return build


def recursive_view(table: str, columns: str) -> Callable[[], bytes]:
    """8 KiB: a view named like Chrome's table over a query that never ends."""
    return sqlite_file(f"CREATE VIEW {table} AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                       f"SELECT {columns} FROM n;")


def rows_made_on_the_fly(table: str, columns: str, made: str) -> Callable[[], bytes]:
    """16 KiB: a real table of 500 rows whose generated column `made` holds 1 MB each."""
    return sqlite_file(f"CREATE TABLE {table} ({columns}, {made} GENERATED ALWAYS AS (zeroblob(1000000)) VIRTUAL); "
                       f"INSERT INTO {table} (i) WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n "
                       f"WHERE k < 500) SELECT k FROM n;")


def archive(parts: dict[str, bytes | int]) -> bytes:
    """A zip of `parts`; an int part is that many zero bytes, packed about 1000 to 1."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as packed:
        for name, data in parts.items():
            if isinstance(data, bytes):
                packed.writestr(name, data)
                continue
            with packed.open(name, "w", force_zip64=True) as member:
                for _ in range(data >> 20):
                    member.write(bytes(1 << 20))
    return out.getvalue()


RELS = ('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{}</Relationships>')
AUDIO_REL = ('<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
             'audio" Target="../media/audio.mp3"/>')
IMAGE_REL = ('<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
             'image" Target="../media/bg.png"/>')
SLIDE = ('<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
         'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
         'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:cSld>{}</p:cSld></p:sld>')
BACKGROUND = '<p:bg><p:bgPr><a:blipFill><a:blip r:embed="rId3"/></a:blipFill></p:bgPr></p:bg>'


def deck(slide: int, rels: str, body: str = "", media: dict[str, bytes | int] | None = None,
         extra: int = 0) -> Callable[[], bytes]:
    """A presentation whose slide number `slide` (1-based) has `rels` and `body`, with `media`
    and `extra` filler members."""
    def build() -> bytes:
        parts = {f"ppt/slides/slide{n}.xml": SLIDE.format(body if n == slide else "").encode() for n in (1, 2)}
        parts[f"ppt/slides/_rels/slide{slide}.xml.rels"] = rels.encode()
        parts.update({f"ppt/media/{name}": data for name, data in (media or {}).items()})
        parts.update({f"filler/{n}": b"" for n in range(extra)})
        return archive(parts)
    return build


LAUGHS = ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "' + "a" * 100 + '">'
          + "".join(f'<!ENTITY {chr(98 + i)} "' + f"&{chr(97 + i)};" * 10 + '">' for i in range(9))
          + ']><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">&j;</Relationships>')
"""An entity bomb: 100 x 10**9 characters once expanded."""


def many_files(folder: str, count: int, suffix: str) -> Plant:
    return lambda backend: shell(backend, f"mkdir -p '{folder}' && cd '{folder}' && "
                                          f"python3 -c 'for i in range({count}): open(\"f%d{suffix}\" % i, \"w\").close()'")


def hard_links(path: str, megabytes: int, links: int) -> Plant:
    """One `megabytes` file and `links` more names for it (no more room taken)."""
    return lambda backend: shell(backend, f"mkdir -p '{os.path.dirname(path)}' && head -c {megabytes}M /dev/zero "
                                          f"| tr '\\0' a > '{path}' && for i in $(seq {links}); do "
                                          f"ln '{path}' \"{path[:-8]}-$i.desktop\"; done")


# ---- the tasks and the attacks -------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Case:
    """A real task (domain/id) whose result getter parses an agent's file; what an untouched
    home holds for it (`home`), and the stand-ins its expected getter reads (`cache` files
    by name, desktop files by path)."""

    task: str
    home: tuple[Plant, ...] = ()
    cache: dict[str, bytes] = dataclasses.field(default_factory=dict)


PREFERENCES_TASKS = ("chrome/bb5e4c0d-f964-439c-97b6-bdb9747de3f4", "chrome/2ae9ba84-3a0d-4d4c-8338-3a1478dc5fe3",
                     "chrome/af630914-714e-4a24-a7bb-f9af687d3b91", "chrome/030eeff7-b492-4218-b312-701ec99ee0cc",
                     "chrome/9656a811-9b5b-4ddf-99c7-5117bcef0626", "chrome/3299584d-8f11-4457-bf4c-ce98f7600250",
                     "chrome/6766f2b8-8a72-417f-a9e5-56fcaa735837", "multi_apps/873cafdd-a581-47f6-8b33-b9696ddb7b05",
                     "chrome/99146c54-4f37-4ab8-9327-5f3291665e1e")
"""One task per Preferences getter type the verified tasks use (default_search_engine,
profile_name, chrome_font_size, enable_do_not_track, enable_safe_browsing, new_startup_page,
find_unpacked_extension_path, find_installed_extension_name, data_delete_automacally)."""


def json_attacks(path: str) -> dict[str, Plant]:
    return {"sparse 10 GiB": sparse(path, "10G"), "sparse 900 MiB": sparse(path, "900M"),
            "nested 1M deep": upload(path, deep_json), "4M empty lists in 12 MB": upload(path, wide_json)}


def sqlite_attacks(path: str, table: str, view: str, columns: str, made: str) -> dict[str, Plant]:
    return {"recursive view": upload(path, recursive_view(table, view)),
            "500 rows of 1 MB made on the fly": upload(path, rows_made_on_the_fly(table, columns, made)),
            "sparse 900 MiB": sparse(path, "900M"), "not a database": upload(path, b"SQLite format 3\0" + bytes(4096))}


AUDIO_DECK = f"{HOME}/Desktop/Mady_and_Mia_Baseball.pptx"
BACKGROUND_DECK = f"{HOME}/Desktop/Robotic_Workshop_Infographics.pptx"


def wav() -> bytes:
    """One second of a 440 Hz tone: an expected recording the audio metric can read."""
    import wave

    import numpy as np

    out = io.BytesIO()
    with wave.open(out, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(22050)
        sound.writeframes((np.sin(np.arange(22050) * 2 * np.pi * 440 / 22050) * 20_000).astype("<i2").tobytes())
    return out.getvalue()


def png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 8), (90, 140, 60)).save(out, format="PNG")
    return out.getvalue()



def slide_attacks(path: str, slide: int, rel: str, body: str, member: str) -> dict[str, Plant]:
    return {
        "512 MiB member in 510 KiB": upload(path, deck(slide, RELS.format(rel), body, {member: 512 << 20})),
        "768 MiB relationships part in 765 KiB": upload(path, lambda: archive({
            f"ppt/slides/slide{slide}.xml": SLIDE.format(body).encode(),
            f"ppt/slides/_rels/slide{slide}.xml.rels": 768 << 20})),
        "20,000 members": upload(path, deck(slide, RELS.format(rel), body, {member: b"x"}, extra=20_000)),
        "entity bomb": upload(path, lambda: archive({f"ppt/slides/_rels/slide{slide}.xml.rels": LAUGHS.encode(),
                                                      f"ppt/slides/slide{slide}.xml": SLIDE.format(body).encode()})),
    }


HOSTILE: dict[str, tuple[tuple[Case, ...], dict[str, Plant]]] = {
    "preferences": (tuple(Case(task) for task in PREFERENCES_TASKS), json_attacks(f"{PROFILE}/Preferences")),
    "bookmarks": ((Case("chrome/2ad9387a-65d8-4e33-ad5b-7580065a27ca"),), json_attacks(f"{PROFILE}/Bookmarks")),
    "cookie_data": ((Case("chrome/7b6c7e24-c58a-49fc-a5bb-d57b80e5b4c3"),),
                    sqlite_attacks(f"{PROFILE}/Cookies", "cookies", "i, 'x' AS host_key", "i", "host_key")),
    "history": ((Case("chrome/44ee5668-ecd5-4366-a6ce-c1c9b8d4e938"),),
                sqlite_attacks(f"{PROFILE}/History", "urls", "'x' AS url, i AS title, i AS last_visit_time",
                               "i, title, last_visit_time", "url")),
    "shortcuts_on_desktop": ((Case("chrome/35253b65-1c19-4304-8aa4-6884b8218fc0"),), {
        "15 MB and 40 hard links": hard_links(f"{HOME}/Desktop/game.desktop", 15, 40),
        "2,000 files": many_files(f"{HOME}/Desktop", 2_000, ".desktop"),
        "sparse 900 MiB": sparse(f"{HOME}/Desktop/game.desktop", "900M")}),
    "audio_in_slide": ((Case("libreoffice_impress/c59742c0-4323-4b9d-8a02-723c251deaa0",
                             home=(upload(AUDIO_DECK, deck(1, RELS.format(""))),
                                   upload(f"{HOME}/Desktop/Baseball.mp3", wav))),),
                       slide_attacks(AUDIO_DECK, 1, AUDIO_REL, "", "audio.mp3")),
    "background_image_in_slide": ((Case("multi_apps/47f7c0ce-a5fb-4100-a5e6-65cd0e7429e5",
                                        home=(upload(BACKGROUND_DECK, deck(2, RELS.format(""))),),
                                        cache={"gold_landscape.png": png()}),),
                                  slide_attacks(BACKGROUND_DECK, 2, IMAGE_REL, BACKGROUND, "bg.png")),
    "list_directory": ((Case("os/23393935-50c7-4a86-aeea-2b78fd089c5c",
                             home=(lambda backend: shell(backend, f"mkdir -p {HOME}/Desktop/cpjpg"),)),),
                       {"50,000 files": many_files(f"{HOME}/Desktop/cpjpg", 50_000, ".jpg")}),
}
"""Getter type -> (the cases it runs on, the attacks by name)."""


# ---- running one ----------------------------------------------------------------------------------

def peak_kib() -> int:
    return int(Path("/proc/self/status").read_text().split("VmHWM:")[1].split()[0])


def restart_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")


@dataclasses.dataclass
class Outcome:
    score: float
    warnings: list[str]
    grown_mib: int
    """Growth of this process's peak memory while the evaluation ran."""
    seconds: float
    written_mib: int
    """What the evaluation left in the episode's scratch folder on this machine's disk."""


def clear_home(backend: DesktopBackend) -> None:
    shell(backend, f"rm -rf {HOME}/.config/google-chrome {HOME}/Desktop && mkdir {HOME}/Desktop")


def score(backend: DesktopBackend, tasks: Path, case: Case, attack: Plant | None, cache: Path) -> Outcome:
    """Clear the home, make the untouched one, leave `attack` on it, and evaluate."""
    spec = load_task_file(tasks / "examples" / f"{case.task}.json")
    clear_home(backend)
    for plant in (*case.home, *([attack] if attack else [])):
        plant(backend)
    (cache / spec.id).mkdir(parents=True, exist_ok=True)
    for name, data in case.cache.items():
        (cache / spec.id / name).write_bytes(data)
    ctx = EpisodeContext(backend, spec, FileCache(cache, allow_download=False))
    try:
        restart_peak()
        before, started = peak_kib(), time.perf_counter()
        result = evaluate(ctx, dataclasses.replace(spec.evaluator, postconfig=()), None)
        seconds, grown = time.perf_counter() - started, (peak_kib() - before) >> 10
        written = sum(f.stat().st_size for f in ctx.scratch.rglob("*") if f.is_file()) >> 20
        return Outcome(result.score, result.warnings, grown, seconds, written)
    finally:
        ctx.close()


CASES = [(kind, case, name) for kind, (cases, attacks) in HOSTILE.items() for case in cases for name in attacks]


@pytest.fixture(scope="module")
def desktop():
    backend = DesktopBackend(DesktopConfig(provider="local", screen_size=(800, 600), shell="openbox"))  # the getters read the same files on either desktop
    backend.start()
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def untouched(desktop, osworld_tasks, tmp_path_factory) -> dict[str, Outcome]:
    """The score of each task on the untouched home (the control)."""
    cache = tmp_path_factory.mktemp("cache")
    return {case.task: score(desktop, osworld_tasks, case, None, cache)
            for cases, _ in HOSTILE.values() for case in cases}


@pytest.mark.slow
@pytest.mark.parametrize("kind, case, attack", CASES, ids=[f"{k}-{c.task.split('/')[1][:8]}-{a}" for k, c, a in CASES])
def test_a_hostile_file_scores_as_the_untouched_home_and_the_host_stays_small(
        desktop, osworld_tasks, untouched, tmp_path, kind, case, attack):
    control = untouched[case.task]
    outcome = score(desktop, osworld_tasks, case, HOSTILE[kind][1][attack], tmp_path)
    assert outcome.score == control.score, (outcome, control)
    assert outcome.grown_mib < HOST_GROWTH_MIB, f"the host grew by {outcome.grown_mib} MiB: {outcome}"
    assert outcome.written_mib <= control.written_mib + 1, f"{outcome.written_mib} MiB written to the host's disk"
    assert all("went past a bound" in warning for warning in outcome.warnings), outcome


@pytest.mark.slow
def test_a_workbook_that_explodes_in_parsing_is_refused_by_the_last_row_getter(desktop, tmp_path):
    """``content_from_vm_file`` (multi_apps/5990457f) reads the agent's workbook in the bounded
    worker; its expected value is a web page, so the getter is asked directly: a 302 KiB
    workbook of 100k rows is refused at its CPU bound, a real one gives its last row."""
    from gui_gym.runtime.bounded_call import Bounds
    from gui_gym.suites.osworld.context import EvaluationLimits
    from gui_gym.suites.osworld.loader import parse_task
    from tests.gui_gym.suites.osworld.test_osworld_evaluator import workbook

    spec = parse_task({"id": "5990457f", "instruction": "x", "evaluator": {"func": "infeasible"}}, tmp_path / "t.json")
    ctx = EpisodeContext(desktop, spec, FileCache(tmp_path, allow_download=False),
                         limits=EvaluationLimits(work=Bounds(memory_bytes=1 << 30, cpu_s=10, wall_s=600)))
    config = {"type": "content_from_vm_file", "path": f"{HOME}/Desktop/researchers.xlsx", "file_type": "xlsx",
              "file_content": "last_row"}
    clear_home(desktop)
    desktop.client.upload(config["path"], workbook(3, 2))
    assert get_getter("content_from_vm_file")(ctx, config) == ["0", "1"]
    desktop.client.upload(config["path"], workbook(100_000, 10))
    restart_peak()
    before = peak_kib()
    with pytest.raises(LimitExceededError, match="10 CPU-second bound"):
        get_getter("content_from_vm_file")(ctx, config)
    assert (peak_kib() - before) >> 10 < HOST_GROWTH_MIB
    ctx.close()


def main(tasks: Path, kind: str | None = None, attack: str | None = None) -> None:
    """Print the figures of each attack (or of `kind` and `attack` only) and of the untouched
    homes, against the code on ``sys.path``, one JSON line each."""
    backend = DesktopBackend(DesktopConfig(provider="local", screen_size=(800, 600), shell="openbox"))  # the getters read the same files on either desktop
    backend.start()
    runs = [(k, c, None) for k, (cs, _) in HOSTILE.items() for c in cs] + CASES
    chosen = [(k, c, a) for k, c, a in runs if kind in (None, k) and (a is None or attack in (None, a))]
    try:
        with tempfile.TemporaryDirectory() as cache:
            for getter, case, name in chosen:
                plant = HOSTILE[getter][1][name] if name else None
                outcome = score(backend, tasks, case, plant, Path(cache))
                print(json.dumps({"getter": getter, "task": case.task, "attack": name or "untouched",
                                  "score": outcome.score, "grown_mib": outcome.grown_mib,
                                  "written_mib": outcome.written_mib,
                                  "seconds": round(outcome.seconds, 1), "warnings": outcome.warnings}), flush=True)
    finally:
        backend.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), *sys.argv[2:4])
