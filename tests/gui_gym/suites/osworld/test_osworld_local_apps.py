"""The apps of OSWorld's tasks on the local provider, with OSWorld's own commands, and the
getters that read them: VLC through its HTTP interface and its vlcrc, Chromium standing in
for Google Chrome (its DevTools port through socat, its profile, its address bar in the
accessibility tree), and GIMP, Thunderbird and LibreOffice Impress opening their windows.
One sandbox for all of them."""

from __future__ import annotations

import io
import subprocess
import tempfile
from pathlib import Path

import pytest
from pptx import Presentation

from gui_gym.backends.desktop import DesktopBackend, DesktopConfig
from gui_gym.suites.osworld.context import EpisodeContext, FileCache
from gui_gym.suites.osworld.getters import get_getter
from gui_gym.suites.osworld.loader import SetupStep, parse_task
from gui_gym.suites.osworld.metrics import media, web
from gui_gym.suites.osworld.setup import SetupRunner
from gui_gym.runtime.waiting import wait_until

APP_TIMEOUT_S = 90.0


@pytest.fixture(scope="module")
def desktop():
    backend = DesktopBackend(DesktopConfig(provider="local", screen_size=(1280, 800), shell="openbox"))
    backend.start()
    spec = parse_task({"id": "apps", "instruction": "x", "evaluator": {"func": "infeasible"}},
                      Path(tempfile.mkdtemp()) / "apps.json")
    ctx = EpisodeContext(backend, spec, FileCache(Path(tempfile.mkdtemp()), allow_download=False))
    yield backend, ctx
    ctx.close()
    backend.close()


def get(ctx, **config):
    return get_getter(config["type"])(ctx, config)


def windows(backend) -> list[str]:
    output = backend.client.execute(["wmctrl", "-l"]).get("output") or ""
    return [line.split(None, 3)[-1] for line in output.splitlines()]


@pytest.mark.slow
def test_vlc_and_chrome_as_osworld_starts_them(desktop, tmp_path):
    backend, ctx = desktop
    clip = tmp_path / "clip.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=60",
                    "-pix_fmt", "yuv420p", str(clip)], check=True, timeout=120)
    backend.client.upload("/home/user/Desktop/clip.mp4", clip.read_bytes())
    SetupRunner(ctx).run([SetupStep("launch", {"command": "VLC_VERBOSE=-1 vlc --no-audio --no-video-title-show "
                                                          "/home/user/Desktop/clip.mp4", "shell": True})])

    def playing() -> bool:
        status = get(ctx, type="vlc_playing_info", dest="status.xml")
        return bool(status) and media.is_vlc_playing(status, {"type": "file_name", "file_name": "clip.mp4"}) == 1.0
    assert wait_until(playing, APP_TIMEOUT_S, interval_s=0.5), "VLC did not report playing the clip"
    assert media.check_qt_bgcone(get(ctx, type="vlc_config", dest="vlcrc"), {"expected_qt_bgcone": 1}) == 1.0

    SetupRunner(ctx).run([SetupStep("launch", {"command": ["google-chrome", "--remote-debugging-port=1337"]}),
                          SetupStep("launch", {"command": ["socat", "tcp-listen:9222,fork", "tcp:localhost:1337"]})])
    assert wait_until(lambda: bool(get(ctx, type="open_tabs_info")), APP_TIMEOUT_S, interval_s=0.5)
    backend.client.execute(["python3", "-c", "import pathlib; pathlib.Path('/home/user/page.html').write_text("
                                             "'<html><head><title>Local page</title></head><body>hi</body></html>')"])
    SetupRunner(ctx).run([SetupStep("chrome_open_tabs", {"urls_to_open": ["file:///home/user/page.html"]}),
                          SetupStep("activate_window", {"window_name": "Google Chrome"})])
    tabs = get(ctx, type="open_tabs_info")
    assert web.is_expected_tabs([t for t in tabs if t["url"].startswith("file:")],
                                {"type": "url", "urls": ["file:///home/user/page.html"]}) == 1.0
    assert wait_until(lambda: get(ctx, type="active_url_from_accessTree", goto_prefix="") is not None, APP_TIMEOUT_S)
    assert get(ctx, type="default_search_engine") in ("Google", "Bing", "DuckDuckGo")
    SetupRunner(ctx).run([SetupStep("launch", {"command": ["pkill", "chrome"]})])  # OSWorld's postconfig
    assert wait_until(lambda: "chromium" not in backend.client.execute(["ps", "-eo", "comm"])["output"], 30)
    assert backend.client.get_file("/home/user/.config/google-chrome/Default/Preferences") is not None


@pytest.mark.slow
def test_gimp_thunderbird_and_impress_open(desktop, tmp_path):
    backend, ctx = desktop
    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[0]).shapes.title.text = "Hello"
    buffer = io.BytesIO()
    deck.save(buffer)
    backend.client.upload("/home/user/Desktop/deck.pptx", buffer.getvalue())
    SetupRunner(ctx).run([SetupStep("open", {"path": "/home/user/Desktop/deck.pptx"}),
                          SetupStep("launch", {"command": ["gimp"]}),
                          SetupStep("launch", {"command": ["/usr/bin/thunderbird"]})])
    for title in ("deck.pptx", "GNU Image Manipulation Program", "Thunderbird"):
        assert wait_until(lambda: any(title.lower() in w.lower() for w in windows(backend)), APP_TIMEOUT_S), \
            f"no window {title!r}: {windows(backend)}"


@pytest.mark.slow
def test_a_verified_chrome_task_end_to_end(osworld_tasks):
    """chrome/12086550 of OSWorld-Verified, as it is: its setup starts "google-chrome" with
    its debugging port and socat, the agent opens the password manager from the address bar,
    and OSWorld's check (the address bar read from the accessibility tree) scores 1."""
    import gymnasium as gym

    from gui_gym.actions import Action

    env = gym.make("GUI/OSWorld-v0", tasks=osworld_tasks, domains=["chrome"], provider="local",
                   screen_size=(1280, 800), allow_download=False, shell="openbox")
    try:
        env.reset(options={"task_id": "12086550-11c0-466b-b367-1d9e75b3910e"})
        task = env.unwrapped.task
        # the new-tab page's address bar is empty, as on the VM (Google's page): wait for the bar itself
        assert wait_until(lambda: 'name="Address and search bar"' in env.unwrapped.backend.client.accessibility_tree(),
                          APP_TIMEOUT_S), "Chromium's address bar never showed in the accessibility tree"
        assert get(task.ctx, type="active_url_from_accessTree", goto_prefix="") is None
        env.unwrapped.backend.client.activate_window("Google Chrome")
        for action in (Action.hotkey("ctrl", "l"), Action.type("chrome://password-manager/passwords\n")):
            env.step(action)
        assert wait_until(lambda: get(task.ctx, type="active_url_from_accessTree", goto_prefix="")
                          == "chrome://password-manager/passwords", 30)
        _, reward, terminated, _, info = env.step(Action.done())
        assert terminated and reward == 1.0, task.last_evaluation
    finally:
        env.close()
