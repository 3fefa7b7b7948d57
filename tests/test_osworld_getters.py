"""OSWorld getters through the real client against a stand-in OSWorld VM on loopback."""

from __future__ import annotations

import openpyxl
import pytest
from test_osworld_setup import ctx, vm  # noqa: F401 - fixtures

from gui_gym.errors import MissingResourceError
from gui_gym.suites.osworld.getters import GETTERS


def get(ctx, **config):  # noqa: F811 - the fixture is passed in
    return GETTERS[config["type"]](ctx, config)


def test_vm_file_single_multi_and_missing(vm, ctx):  # noqa: F811
    vm.files.update({"/home/user/a.txt": b"A", "/home/user/b.txt": b"B"})
    path = get(ctx, type="vm_file", path="/home/user/a.txt", dest="a.txt")
    assert path.read_bytes() == b"A" and path.parent == ctx.scratch
    both = get(ctx, type="vm_file", multi=True, path=["/home/user/a.txt", "/home/user/b.txt"],
               dest=["a.txt", "b.txt"], gives=[0, 1])
    assert [p.read_bytes() for p in both] == [b"A", b"B"]
    assert get(ctx, type="vm_file", path="/home/user/none.txt", dest="none.txt") is None


def test_command_getters(vm, ctx):  # noqa: F811
    vm.run = lambda command, shell: {"status": "success", "output": "43 132\n", "error": "warn", "returncode": 0}
    assert get(ctx, type="vm_command_line", command="stty size", shell=True) == "43 132\n"
    assert get(ctx, type="vm_command_error", command=["x"]) == "warn"
    assert get(ctx, type="vm_terminal_output").endswith("43 132\n")
    assert get(ctx, type="vm_screen_size") == {"width": 1920, "height": 1080}
    assert get(ctx, type="rule", rules={"expected": 1}) == {"expected": 1}
    assert get(ctx, type="accessibility_tree") == "<desktop-frame/>"


def test_local_cache_and_cloud_files(ctx, tmp_path):  # noqa: F811
    assert get(ctx, type="local_file", path="missing.txt", dest="m.txt") is None
    (ctx.spec.folder / "gold.txt").write_text("gold")
    assert get(ctx, type="local_file", path="gold.txt", dest="g.txt").read_text() == "gold"
    (ctx.scratch / "out.txt").write_text("from setup")
    assert get(ctx, type="cache_file", path="out.txt").read_text() == "from setup"
    assert get(ctx, type="cache_file", path="nothing.txt") is None
    with pytest.raises(MissingResourceError, match=r"https://example.org/gold.xlsx is not in the OSWorld file cache"):
        get(ctx, type="cloud_file", path="https://example.org/gold.xlsx", dest="gold.xlsx")
    (ctx.task_cache).mkdir(parents=True)
    (ctx.task_cache / "gold.xlsx").write_bytes(b"cached")
    assert get(ctx, type="cloud_file", path="https://example.org/gold.xlsx", dest="gold.xlsx").read_bytes() == b"cached"


def test_content_from_vm_file_last_row(vm, ctx, tmp_path):  # noqa: F811
    wb = openpyxl.Workbook()
    for row in (["a", "b"], [1, 2], [3, "x"]):
        wb.active.append(row)
    wb.save(tmp_path / "w.xlsx")
    vm.files["/home/user/w.xlsx"] = (tmp_path / "w.xlsx").read_bytes()
    assert get(ctx, type="content_from_vm_file", path="/home/user/w.xlsx", file_type="xlsx",
               file_content="last_row") == ["3", "x"]
