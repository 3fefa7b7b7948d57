"""An agent that wants 1.0 without doing the task, against the evaluator of real OSWorld-Verified
tasks on a local sandbox desktop (issue 46). Each attack is performed as the agent would (as
``user``, before the evaluation, a loop left running in the background where it helps), next
to a control that does nothing and, where the attack goes through a path the task needs, a
correct solution that must still score 1. OSWorld's file cache cannot be downloaded here, so
the files it would hand out are stand-ins the test makes. One sandbox for the module."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gui_gym.backends.desktop import DesktopBackend, DesktopConfig
from gui_gym.suites.osworld.evaluator import evaluate
from tests.gui_gym.suites.osworld.hostile_home import (
    HOME, background, episode, make_in_the_way, planted_source, sh, stop_background, task_spec, urls)

pytestmark = pytest.mark.slow

EMPLOYEES = [("Ada", "1990-03-01", 35), ("Bo", "1985-11-20", 40), ("Cy", "2000-07-15", 25)]
TETRIS = {
    "block.py": "class Block:\n    def __init__(self, shape):\n        self.shape = shape\n",
    "settings.py": "WIDTH = 10\n",
    "tetris.py": ("from block import Block\nfrom settings import WIDTH\n\n\nclass Tetris:\n"
                  "    def __init__(self):\n        self.width = WIDTH\n\n"
                  "    def rotate(self, shape):\n        return {rotate}\n"),
    "main.py": "from tetris import Tetris\n\nif __name__ == '__main__':\n    Tetris()\n",
}
TETRIS_TEST = (b"from block import Block\nfrom tetris import Tetris\n\n\ndef test():\n"
               b"    return Tetris().rotate([[1, 0], [1, 1]]) == [[1, 1], [1, 0]] and Block([[1]]).shape == [[1]]\n")
FIXED, BUGGY = "[list(row) for row in zip(*shape[::-1])]", "shape"


@pytest.fixture(scope="module")
def desktop():
    backend = DesktopBackend(DesktopConfig(provider="local", screen_size=(1024, 768), shell="openbox"))  # the evaluation is the same on either desktop; openbox boots in a quarter of the time
    backend.start()
    yield backend
    backend.close()


def workbook(ages: bool) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["Name", "Birthday", "Age"])
    for name, born, age in EMPLOYEES:
        sheet.append([name, born, age if ages else None])
    data = io.BytesIO()
    book.save(data)
    return data.getvalue()


def score(ctx) -> float:
    try:
        return evaluate(ctx, ctx.spec.evaluator, last_action=None).score
    finally:
        ctx.close()


def test_a_gold_file_linked_to_the_agents_sheet_no_longer_scores(desktop, osworld_tasks, tmp_path):
    """libreoffice_calc/4e6fcf72: postconfig downloads the gold workbook next to the agent's and
    compares the two. Planted as a link, a hard link, or re-linked by a loop while the evaluation
    runs, the gold used to become the agent's own sheet (1.0 for an untouched one); the gold now
    stays on the host (`held_files`) and no write goes through a link."""
    spec = task_spec(osworld_tasks, "libreoffice_calc", "4e6fcf72-daf3-439f-a232-c434ce416af6")
    sheet, gold = f"{HOME}/Employee_Age_By_Birthday.xlsx", f"{HOME}/Employee_Age_By_Birthday_gold.xlsx"
    stand_ins = {urls(spec)[0]: workbook(ages=True)}

    def attempt(mine: bytes, attack: str) -> float:
        sh(desktop, f"rm -rf {gold}")
        desktop.client.upload(sheet, mine)
        if attack in ("link", "hardlink"):
            make_in_the_way(desktop, gold, attack, sheet)
        if attack == "loop":
            background(desktop, f"while :; do ln -f {sheet} {gold} 2>/dev/null; done", "/tmp/relink.pid")
        try:
            return score(episode(desktop, spec, tmp_path / attack, stand_ins))
        finally:
            if attack == "loop":
                stop_background(desktop, "/tmp/relink.pid")
    results = {attack: attempt(workbook(ages=False), attack) for attack in ("none", "link", "hardlink", "loop")}
    results["solved"] = attempt(workbook(ages=True), "none")
    assert results == {"none": 0.0, "link": 0.0, "hardlink": 0.0, "loop": 0.0, "solved": 1.0}


def test_a_gold_file_the_desktops_checker_reads_is_never_written_through_a_link(desktop, osworld_tasks, tmp_path):
    """multi_apps/9f3bb592 downloads a gold subtitle file into the home and a checker script
    that compares it with the agent's export; the desktop needs both, so they are written there.
    A link or a hard link from the gold's path to the agent's export used to receive the gold
    (1.0 for any export); a ``json.py`` beside the checker printed its verdict. The write is now
    refused (0, with a warning), and the checker runs isolated."""
    spec = task_spec(osworld_tasks, "multi_apps", "9f3bb592-209d-43bc-bb47-d77d9df56504")
    gold, export = f"{HOME}/subtitles_Gold.srt", f"{HOME}/Desktop/subtitles.srt"
    gold_text = b"1\n00:00:01,000 --> 00:00:02,000\nHello\n"
    checker = (f"import json\nprint(json.dumps(open({gold!r}, 'rb').read() == open({export!r}, 'rb').read()))\n"
               ).encode()
    stand_ins = dict(zip(urls(spec), (gold_text, checker)))

    def attempt(mine: bytes, attack: str) -> float:
        sh(desktop, f"rm -rf {gold} {HOME}/Desktop/json.py")
        desktop.client.upload(export, mine)
        if attack in ("link", "hardlink"):
            make_in_the_way(desktop, gold, attack, export)
        if attack == "module":
            desktop.client.upload(f"{HOME}/Desktop/json.py", b"print('true')\nraise SystemExit(0)\n")
        return score(episode(desktop, spec, tmp_path / attack, stand_ins))
    results = {attack: attempt(b"nothing done\n", attack) for attack in ("none", "link", "hardlink", "module")}
    results["solved"] = attempt(gold_text, "solved")
    sh(desktop, f"rm -rf {gold} {export} {HOME}/Desktop/subtitles_script.py {HOME}/Desktop/json.py")
    assert results == {"none": 0.0, "link": 0.0, "hardlink": 0.0, "module": 0.0, "solved": 1.0}


def test_a_module_dropped_into_the_test_suites_folder_cannot_score(desktop, osworld_tasks, tmp_path):
    """multi_apps/9219480b (check_python_file_by_test_suite): a loop the agent left copies a
    ``uuid.py`` that prints a full score into every evaluator folder it can find; the harness
    used to import it from its own folder. It now runs where ``user`` cannot write, as an id of
    its own, answering on a pipe. And a correct fix scores 1: the test imports the task's other
    modules, which are copied beside it as OSWorld has them (it used to get only ``block.py``)."""
    spec = task_spec(osworld_tasks, "multi_apps", "9219480b-3aed-47fc-8bac-d2cffc5849f7")
    stand_ins = {urls(spec)[0]: TETRIS_TEST}
    uuid_py = "print('GUI-GYM-SCORE 1.0')\nraise SystemExit(0)\n"
    desktop.client.upload(f"{HOME}/uuid.py", uuid_py.encode())
    loop = ("while :; do for d in /tmp/gui-gym-run-* /tmp/gui-gym-eval-*; do "
            f"[ -d \"$d\" ] && cp -f {HOME}/uuid.py \"$d/uuid.py\" 2>/dev/null; done; done")

    def attempt(rotate: str, attack: bool, name: str) -> float:
        for file, text in TETRIS.items():
            desktop.client.upload(f"{HOME}/Desktop/tetris/{file}", text.format(rotate=rotate).encode())
        if attack:
            background(desktop, loop, "/tmp/drop.pid")
        try:
            return score(episode(desktop, spec, tmp_path / name, stand_ins))
        finally:
            if attack:
                stop_background(desktop, "/tmp/drop.pid")
    results = {"buggy": attempt(BUGGY, False, "buggy"), "buggy+uuid.py": attempt(BUGGY, True, "attack"),
               "fixed": attempt(FIXED, False, "fixed")}
    assert results == {"buggy": 0.0, "buggy+uuid.py": 0.0, "fixed": 1.0}


def test_a_json_module_in_the_home_cannot_forge_the_open_tabs(desktop, osworld_tasks, tmp_path):
    """chrome/06fe7178 (is_expected_tabs on open_tabs_info): a ``~/json.py`` printing the
    expected tabs was imported by the DevTools probe, which ran ``python3 -c`` in the home: 1.0
    with no tab opened. The probe now runs isolated, from ``/``."""
    spec = task_spec(osworld_tasks, "chrome", "06fe7178-4491-4589-810f-2e2bc9502122")
    control = score(episode(desktop, spec, tmp_path / "control"))
    desktop.client.upload(f"{HOME}/json.py", planted_source("json").encode())
    try:
        attacked = score(episode(desktop, spec, tmp_path / "attack"))
    finally:
        sh(desktop, f"rm -f {HOME}/json.py {HOME}/.planted-module-ran")
    assert (control, attacked) == (0.0, 0.0)


def test_a_folder_or_fifo_where_postconfig_downloads_scores_zero_with_a_warning(desktop, osworld_tasks, tmp_path):
    """os/37887e8c downloads its checker ``eval.sh`` into the home and runs it. A folder or a FIFO
    the agent left there made the server's write fail, and the ServerError escaped the
    evaluation (an "env" error, excluded and retried); a link there was written through. Each now
    scores 0 with a warning, and the checker still runs for an agent that did the task."""
    spec = task_spec(osworld_tasks, "os", "37887e8c-da15-4192-923c-08fa390a176d")
    checker = b"[ -d /tmp/test_files/old_files ] && echo 'SUCCESS: The task was completed correctly.'\n"
    stand_ins = {urls(spec)[0]: checker}

    def attempt(kind: str) -> tuple[float, list[str]]:
        sh(desktop, f"rm -rf {HOME}/eval.sh {HOME}/mine.sh; echo 'echo SUCCESS: The task was completed correctly.'"
                    f" > {HOME}/mine.sh")
        if kind in ("folder", "fifo", "link"):
            make_in_the_way(desktop, f"{HOME}/eval.sh", kind, f"{HOME}/mine.sh")
        ctx = episode(desktop, spec, tmp_path / kind, stand_ins)
        try:
            evaluation = evaluate(ctx, spec.evaluator, last_action=None)
        finally:
            ctx.close()
        return evaluation.score, evaluation.warnings
    results = {kind: attempt(kind) for kind in ("none", "folder", "fifo", "link")}
    sh(desktop, "mkdir -p /tmp/test_files/old_files")
    try:
        results["solved"] = attempt("none")
    finally:
        sh(desktop, f"rm -rf /tmp/test_files {HOME}/eval.sh {HOME}/mine.sh")
    assert results["none"] == (0.0, []) and results["solved"] == (1.0, [])
    for kind, what in (("folder", "a folder"), ("fifo", "a FIFO"), ("link", "a symbolic link")):
        assert results[kind][0] == 0.0 and len(results[kind][1]) == 1, results[kind]
        assert f"{HOME}/eval.sh is {what}, where the file goes" in results[kind][1][0]


def test_a_fifo_raced_into_a_file_the_evaluator_reads_is_no_file(desktop):
    """``/file`` checked the path, then read it: a loop swapping a FIFO in between hung the read
    until the server gave up (an "env" error). The file is now opened once, without waiting on a
    FIFO, and read only if that descriptor is a regular file."""
    race = f"{HOME}/Desktop/result.txt"
    background(desktop, f"cd {HOME}/Desktop; while :; do echo data > f.tmp; mv -f f.tmp result.txt; "
                        "mkfifo p.tmp; mv -f p.tmp result.txt; done", "/tmp/race.pid")
    try:
        reads = [desktop.client.get_file(race) for _ in range(40)]
    finally:
        stop_background(desktop, "/tmp/race.pid")
        sh(desktop, f"rm -f {race} {HOME}/Desktop/f.tmp {HOME}/Desktop/p.tmp")
    assert set(reads) <= {None, b"data\n"}
