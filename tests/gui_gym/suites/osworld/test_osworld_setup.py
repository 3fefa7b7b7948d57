"""OSWorld setup steps through the real client and the `remote` provider, against a stand-in
OSWorld VM on loopback (see test_desktop_client.FakeVM)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from tests.gui_gym.backends.desktop.test_desktop_client import FakeVM

from gui_gym.backends.desktop import DesktopBackend
from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.osworld.context import EpisodeContext, FileCache
from gui_gym.suites.osworld.loader import SetupStep, parse_task
from gui_gym.suites.osworld.setup import SetupRunner, fill_placeholders


@pytest.fixture
def vm():
    with FakeVM() as fake:
        yield fake


@pytest.fixture
def ctx(vm, tmp_path: Path):
    backend = DesktopBackend(provider="remote", host="127.0.0.1", port=vm.endpoint.port)
    backend.start()
    (tmp_path / "task").mkdir()
    (tmp_path / "task" / "input.txt").write_text("local data")
    spec = parse_task({"id": "t1", "instruction": "do", "evaluator": {"func": "infeasible"}},
                      tmp_path / "task" / "t1.json")
    context = EpisodeContext(backend, spec, FileCache(tmp_path / "cache", allow_download=False))
    yield context
    context.close()
    backend.close()


def run(ctx: EpisodeContext, kind: str, **parameters) -> None:
    SetupRunner(ctx).run([SetupStep(kind, parameters)])


def test_placeholders_are_filled(ctx):
    command = ["python", "-c", "click({SCREEN_WIDTH_HALF}, {SCREEN_HEIGHT_HALF}); size({SCREEN_WIDTH}x{SCREEN_HEIGHT})",
               "{CLIENT_PASSWORD}"]
    assert fill_placeholders(command, ctx) == ["python", "-c", "click(960, 540); size(1920x1080)", "password"]
    assert fill_placeholders("echo {SCREEN_WIDTH}", ctx) == "echo 1920"


def test_execute_runs_in_the_vm_and_keeps_stdout(vm, ctx):
    vm.run = lambda command, shell: {"status": "success", "output": "out!", "error": "err!", "returncode": 0}
    run(ctx, "execute", command=["ls", "{SCREEN_WIDTH}"], stdout="listing.txt", stderr="errors.txt")
    assert ("/setup/execute", ["ls", "1920"]) in vm.calls
    assert (ctx.scratch / "listing.txt").read_text() == "out!" and (ctx.scratch / "errors.txt").read_text() == "err!"


def test_execute_until_repeats_until_the_condition_holds(vm, ctx):
    answers = iter(["wait", "wait", "ready"])
    vm.run = lambda command, shell: {"status": "success", "output": next(answers), "error": "", "returncode": 0}
    run(ctx, "command", command="probe", shell=True, until={"stdout": "ready"})
    assert [c for c in vm.calls if c[0] == "/setup/execute"] == [("/setup/execute", "probe")] * 3


def test_launch_open_windows_and_sleep(vm, ctx):
    SetupRunner(ctx).run([SetupStep("launch", {"command": ["mousepad"]}), SetupStep("sleep", {"seconds": 0.05}),
                          SetupStep("open", {"path": "/home/user/a.xlsx"}),
                          SetupStep("activate_window", {"window_name": "sales.xlsx - LibreOffice Calc", "strict": True}),
                          SetupStep("close_window", {"window_name": "sales.xlsx"})])
    assert [c[0] for c in vm.calls] == ["launch", "open", "activate_window", "close_window"]


def test_upload_file_resolves_paths_next_to_the_task(vm, ctx):
    run(ctx, "upload_file", files=[{"local_path": "input.txt", "path": "/home/user/input.txt"}])
    assert vm.files["/home/user/input.txt"] == b"local data"
    with pytest.raises(MissingResourceError, match=r"upload_file source .*missing.txt does not exist"):
        run(ctx, "upload_file", files=[{"local_path": "missing.txt", "path": "/x"}])


def test_download_uses_osworld_cache_layout_and_names_the_url_when_offline(vm, ctx):
    url = "https://huggingface.co/datasets/x/resolve/main/a.xlsx"
    with pytest.raises(MissingResourceError, match=r"https://huggingface.co/.*/a.xlsx is not in the OSWorld file "
                                                   r"cache and downloads are off; put the file at .*cache/t1/"):
        run(ctx, "download", files=[{"url": url, "path": "/home/user/a.xlsx"}])
    cached = ctx.cache.root / "t1" / f"{uuid.uuid5(uuid.NAMESPACE_URL, url)}_a.xlsx"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"xlsx bytes")
    run(ctx, "download", files=[{"url": url, "path": "/home/user/a.xlsx"}])
    assert vm.files["/home/user/a.xlsx"] == b"xlsx bytes"


def test_unknown_and_unavailable_step_types(ctx):
    with pytest.raises(TaskConfigError, match=r"unknown setup step type 'teleport' \(step 0\); supported: \["):
        run(ctx, "teleport")
    with pytest.raises(MissingResourceError, match=r"setup step 'googledrive' needs Google Drive credentials"):
        run(ctx, "googledrive", settings_file="x")
    with pytest.raises(TaskConfigError, match=r"setup step 0 \(launch\) has bad parameters \['cmd'\]"):
        run(ctx, "launch", cmd=["x"])


def test_remote_backend_runs_actions_as_pyautogui_in_the_vm(vm, ctx):
    from gui_gym.actions import Action

    ctx.backend.execute(Action.type("a < b"))
    command = [c for c in vm.calls if c[0] == "/execute"][-1][1]
    assert command[:2] == ["python", "-c"]
    assert "pyautogui.write('a ')\npyautogui.hotkey('shift', ',')\npyautogui.write(' b')" in command[2]
    obs = ctx.backend.observe()
    assert obs.screenshot.shape == (3, 4, 3) and tuple(obs.screenshot[0, 0]) == (10, 20, 30)


def test_update_browse_history_fills_chrome_history(vm, ctx):  # noqa: F811
    """OSWorld's ``_update_browse_history_setup``: its empty history database (from the file
    cache) with a url and a visit row per item, uploaded to Chrome's profile."""
    import sqlite3

    template = ctx.task_cache / "history_new.sqlite"
    template.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(template) as db:
        db.execute("create table urls (id integer primary key, url, title, visit_count, typed_count, last_visit_time, hidden)")
        db.execute("create table visits (id integer primary key, url, visit_time, from_visit, transition, segment_id, "
                   "visit_duration)")
    run(ctx, "update_browse_history", history=[{"url": "https://a.org", "title": "A", "visit_time_from_now_in_seconds": 60}])
    uploaded = ctx.scratch / "History"
    uploaded.write_bytes(vm.files["/home/user/.config/google-chrome/Default/History"])
    with sqlite3.connect(uploaded) as db:
        assert db.execute("select url, title, visit_count from urls").fetchall() == [("https://a.org", "A", 1)]
        assert db.execute("select transition from visits").fetchall() == [(805306368,)]
