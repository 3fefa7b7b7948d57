"""The Android backend, unchanged adbutils underneath, against the fake adb server."""

from __future__ import annotations

import io
import socket

import numpy as np
import pytest
from PIL import Image

from tests.fakes.adb_server import FakeAdbServer
from tests.fakes.virtual_device import VirtualDevice
from gui_gym.actions import Action
from gui_gym.backends.android.backend import DEFAULT_SCREEN_SIZE, AndroidBackend, AndroidConfig
from gui_gym.errors import ActionExecutionError, InfraError, MissingResourceError
from gui_gym.runtime.loopback import free_port


@pytest.fixture
def server():
    with FakeAdbServer([VirtualDevice()]) as s:
        yield s


@pytest.fixture
def phone(server):
    return server.devices["emulator-5554"]


@pytest.fixture
def backend(server):
    b = AndroidBackend(AndroidConfig(adb_port=server.port, settle_timeout_s=2.0))
    b.start()
    b.new_episode()
    yield b
    b.close()




def index_of(backend: AndroidBackend, label: str) -> int:
    return next(i for i, e in enumerate(backend.elements()) if label in (e.text, e.content_description, e.hint_text))


@pytest.mark.timeout(20)
def test_no_adb_server_fails_fast_and_starts_none(monkeypatch):
    monkeypatch.delenv("ANDROID_SERIAL", raising=False)
    port = free_port()
    backend = AndroidBackend(AndroidConfig(adb_port=port))
    assert backend.screen_size == DEFAULT_SCREEN_SIZE
    with pytest.raises(MissingResourceError, match=rf"no adb server answers at 127.0.0.1:{port} .*`adb start-server`"
                                                   r".*`emulator -avd <name>.*`adb devices`"):
        backend.start()
    with pytest.raises(ConnectionRefusedError):  # adbutils would have spawned `adb start-server` here
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_no_device_attached(monkeypatch):
    monkeypatch.delenv("ANDROID_SERIAL", raising=False)
    with FakeAdbServer([]) as empty:
        with pytest.raises(MissingResourceError, match=r"no Android device or emulator is ready \(attached: none\); "
                                                       r"start an emulator"):
            AndroidBackend(AndroidConfig(adb_port=empty.port, screen_size=(360, 800))).start()


def test_serial_selection(monkeypatch):
    monkeypatch.delenv("ANDROID_SERIAL", raising=False)
    with FakeAdbServer([VirtualDevice("emulator-5554"), VirtualDevice("emulator-5556")]) as two:
        with pytest.raises(MissingResourceError, match=r"2 Android devices are attached \(emulator-5554 \(device\), "
                                                       r"emulator-5556 \(device\)\); choose one with serial="):
            AndroidBackend(AndroidConfig(adb_port=two.port, screen_size=(360, 800))).start()
        with pytest.raises(MissingResourceError, match="Android device 'emulator-9' is not ready"):
            AndroidBackend(AndroidConfig(adb_port=two.port, serial="emulator-9", screen_size=(360, 800))).start()
        chosen = AndroidBackend(AndroidConfig(adb_port=two.port, serial="emulator-5556"))
        chosen.start()
        chosen.execute(Action("navigate_back"))
        assert two.devices["emulator-5556"].events[-1] == ("key", "KEYCODE_BACK")
        assert two.devices["emulator-5554"].events == []
        monkeypatch.setenv("ANDROID_SERIAL", "emulator-5554")
        from_env = AndroidBackend(AndroidConfig(adb_port=two.port))
        from_env.start()
        assert from_env.serial == "emulator-5554"


def test_screen_size_is_read_from_the_device_and_checked(server):
    assert AndroidBackend(AndroidConfig(adb_port=server.port)).screen_size == (360, 800)
    wrong = AndroidBackend(AndroidConfig(adb_port=server.port, screen_size=(1080, 2400)))
    with pytest.raises(MissingResourceError, match=r"has a 360x800 screen but this env was made for 1080x2400"):
        wrong.start()


def test_start_locks_portrait(backend, phone):
    assert phone.settings["system"]["accelerometer_rotation"] == "0"


def test_observation_is_the_device_screen(backend, phone):
    obs = backend.observe(a11y=True)
    expected = np.asarray(Image.open(io.BytesIO(phone.screencap_png())).convert("RGB"))
    assert obs.screenshot.shape == (800, 360, 3) and np.array_equal(obs.screenshot, expected)
    assert obs.app == "com.google.android.apps.nexuslauncher"
    assert '[1] TextView "Settings" desc="Settings" clickable' in obs.a11y_tree


def test_settle_waits_out_the_launch_splash(backend, phone, server):
    before = sum(r.startswith("shell,v2:uiautomator dump") for r in server.requests)
    backend.execute(Action("open_app", text="Settings"))
    dumps = sum(r.startswith("shell,v2:uiautomator dump") for r in server.requests) - before
    assert phone.splash == 0 and dumps >= 4  # two splash frames, then two identical dumps
    obs = backend.observe(a11y=True)
    assert obs.app == "com.android.settings" and "Loading" not in obs.a11y_tree and '"Wi-Fi"' in obs.a11y_tree


def test_settle_gives_up_on_a_ui_that_never_holds_still(server, phone):
    backend = AndroidBackend(AndroidConfig(adb_port=server.port, settle_timeout_s=0.3))
    backend.start()
    phone.launch("com.android.settings")
    phone.splash = 10**6  # a splash whose text changes on every read
    backend.execute(Action("wait", duration_s=0))
    assert phone.splash < 10**6 - 2


@pytest.mark.parametrize("action, event", [
    (Action.click(100, 200), ("tap", 100, 200)),
    (Action("long_press", x=30, y=40), ("swipe", 30, 40, 30, 40, 1000)),
    (Action("long_press", x=30, y=40, duration_s=2), ("swipe", 30, 40, 30, 40, 2000)),
    # AndroidWorld's swipe (env/actuation.py:169-191): edge to edge through the middle, 500 ms
    (Action("swipe", direction="up"), ("swipe", 180, 800, 180, 0, 500)),
    (Action("swipe", direction="up", x=100, y=500), ("swipe", 100, 500, 100, 260, 400)),  # 30% of the screen
    (Action("swipe", x=10, y=20, to_x=30, to_y=40), ("swipe", 10, 20, 30, 40, 400)),
    (Action.drag(10, 20, 30, 40), ("swipe", 10, 20, 30, 40, 400)),
    # AndroidWorld's scroll (env/actuation.py:138-167): centre of (0, 0, 360, 800) to its top edge,
    # no duration given (the device's default; the fake's is 300 ms)
    (Action.scroll("down"), ("swipe", 180, 400, 180, 0, 300)),
    (Action.scroll("up", x=100, y=300), ("swipe", 100, 300, 100, 600, 300)),  # a 600 px region about the point
    (Action.click(100.9, 200.5), ("tap", 100, 200)),  # int(), as actuation.py:64
    (Action.key("enter"), ("key", "KEYCODE_ENTER")),
    (Action.key("@"), ("text", "@")),
    (Action.hotkey("ctrl", "a"), ("keycombination", "KEYCODE_CTRL_LEFT", "KEYCODE_A")),
    (Action("navigate_back"), ("key", "KEYCODE_BACK")),
    (Action("navigate_home"), ("key", "KEYCODE_HOME")),
    (Action.goto("https://example.com/a?b=1&c=2"), ("view", "https://example.com/a?b=1&c=2")),
])
def test_every_action_kind_reaches_the_device(backend, phone, action, event):
    backend.execute(action)
    assert phone.events[-1] == event


def test_double_click_taps_twice(backend, phone):
    backend.execute(Action.double_click(50, 60))
    assert phone.events[-2:] == [("tap", 50, 60), ("tap", 50, 60)]


def test_open_app_by_name_or_package(backend):
    backend.execute(Action("open_app", text="Clock"))
    assert backend.foreground() == ("com.google.android.deskclock", "com.android.deskclock.DeskClock")
    backend.execute(Action("open_app", text="com.android.settings"))
    assert backend.foreground()[0] == "com.android.settings"
    with pytest.raises(ActionExecutionError, match="no installed app matches 'Snapchat'"):
        backend.execute(Action("open_app", text="Snapchat"))


def test_element_index_clicks_and_typing_with_every_shell_metacharacter(backend, phone):
    backend.execute(Action("open_app", text="Contacts"))
    backend.execute(Action.click_element(index_of(backend, "Create contact")))
    text = "O'Brien \"Jr\" <b>&|; $HOME `id` 100%sure %s\\"
    backend.execute(Action("type", text=text, element=index_of(backend, "First name")))
    first = backend.elements()[index_of(backend, "First name")]
    assert first.text == text and first.is_focused
    backend.execute(Action("type", text="555\n", element=index_of(backend, "Phone")))
    assert phone.events[-1] == ("key", "KEYCODE_ENTER")


def test_scroll_on_an_element_swipes_inside_it(backend, phone):
    backend.execute(Action("open_app", text="Files"))
    listing = index_of(backend, "Alarms") - 1  # the RecyclerView holding the rows
    assert backend.elements()[listing].is_scrollable
    backend.execute(Action("scroll", direction="down", element=listing))
    # AndroidWorld's scroll of an element: its box's centre (80 + 752) // 2 to its top edge
    assert phone.events[-1] == ("swipe", 180, 416, 180, 80, 300)


@pytest.mark.parametrize("action, message", [
    (Action.right_click(5, 5), "an Android touchscreen has no 'right_click'"),
    (Action.move(5, 5), "an Android touchscreen has no 'move'"),
    (Action.click(400, 5), r"point \(400, 5\) is off the 360x800 screen"),
    (Action.click_element(99), "element index 99 does not exist; the screen has 5 indexed elements"),
    (Action.type("José"), "printable ASCII only"),
])
def test_actions_a_phone_cannot_take(backend, action, message):
    with pytest.raises(ActionExecutionError, match=message):
        backend.execute(action)
    assert backend.healthy


def test_device_files_and_shell(backend):
    backend.write_file("/sdcard/Download/x.txt", b"data")
    assert backend.exists("/storage/emulated/0/Download/x.txt")
    assert backend.read_file("/sdcard/Download/x.txt") == b"data"
    assert backend.read_file("/sdcard/Download/none.txt") is None
    assert "x.txt" in backend.list_dir("/sdcard/Download") and backend.list_dir("/sdcard/none") == []
    assert backend.shell(["echo", "a b"]).stdout == "a b\n"
    with pytest.raises(ActionExecutionError, match=r"`ls /nope` failed on emulator-5554 \(exit 1\): ls: /nope"):
        backend.shell(["ls", "/nope"])
    assert backend.shell("ls /nope", check=False).exit_code == 1


def test_a_lost_adb_server_is_an_infrastructure_failure(backend, server):
    server.stop()
    with pytest.raises(InfraError, match="AndroidBackend"):
        backend.execute(Action.click(10, 10))
    assert not backend.healthy


@pytest.mark.parametrize("fields, message", [
    ({"screen_size": (1080,)}, r"screen_size must be \(width, height\) in pixels, received \(1080,\)"),
    ({"screen_size": (0, 10)}, r"screen_size must be \(width, height\) in pixels"),
    ({"settle_timeout_s": 0}, "settle_timeout_s must be positive, received 0"),
])
def test_config_is_checked_at_the_door(fields, message):
    with pytest.raises(ValueError, match=message):
        AndroidConfig(**fields)
    kwargs = {"screen_size": [360, 800], "observe_a11y": True}
    assert AndroidConfig.pop_from(kwargs).screen_size == (360, 800) and kwargs == {"observe_a11y": True}
