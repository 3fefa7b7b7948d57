"""The fake adb server speaks adb's wire protocol byte for byte, and adbutils runs on it unchanged."""

from __future__ import annotations

import io
import socket
import sqlite3
import struct

import adbutils
import pytest
from PIL import Image

from tests.fakes.adb_server import COMMANDS, FakeAdbServer
from tests.fakes.device_shell import android_input_text, parse_command_line, run_command_line
from tests.fakes.virtual_device import ALARMS_DB, VirtualDevice


@pytest.fixture
def server():
    with FakeAdbServer([VirtualDevice()]) as s:
        yield s


@pytest.fixture
def device(server):
    return adbutils.AdbClient(server.host, server.port, socket_timeout=10).device("emulator-5554")


def request(sock: socket.socket, service: str) -> None:
    sock.sendall(b"%04x" % len(service) + service.encode())


def read(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        assert chunk, f"connection closed after {data!r}"
        data += chunk
    return data


def connect(server) -> socket.socket:
    return socket.create_connection((server.host, server.port), timeout=5)


def test_host_services_are_framed_as_adb_frames_them(server):
    with connect(server) as sock:
        request(sock, "host:version")
        assert read(sock, 12) == b"OKAY00040029"
    with connect(server) as sock:
        request(sock, "host:devices")
        assert read(sock, 8) == b"OKAY0015" and read(sock, 0x15) == b"emulator-5554\tdevice\n"
    with connect(server) as sock:
        request(sock, "host:nonsense")
        assert read(sock, 8) == b"FAIL0023" and read(sock, 0x23) == b"unknown host service: host:nonsense"


def test_tport_answers_a_transport_id_then_the_connection_talks_to_the_device(server):
    with connect(server) as sock:
        request(sock, "host:tport:serial:emulator-5554")
        assert read(sock, 4) == b"OKAY" and struct.unpack("<Q", read(sock, 8)) == (1,)
        request(sock, "shell,v2:echo out; ls /nope")
        assert read(sock, 4) == b"OKAY"
        packets = []
        while not packets or packets[-1][0] != 3:
            packet_id, length = struct.unpack("<BI", read(sock, 5))
            packets.append((packet_id, read(sock, length)))
    assert packets == [(1, b"out\n"), (2, b"ls: /nope: No such file or directory\n"), (3, b"\x01")]


def test_unknown_serial_fails_with_adbs_message(server):
    with connect(server) as sock:
        request(sock, "host:transport:emulator-9999")
        assert read(sock, 8) == b"FAIL0020" and read(sock, 0x20) == b"device 'emulator-9999' not found"


def test_adbutils_shell_v1_and_v2_give_output_and_exit_codes(device):
    assert device.shell("echo hi; echo $?") == "hi\n0"
    v2 = device.shell2("settings get global wifi_on; ls /missing", v2=True)
    assert (v2.returncode, v2.stdout, v2.stderr) == (1, "1\n", "ls: /missing: No such file or directory\n")
    v1 = device.shell2("settings get global wifi_on", v2=False)
    assert (v1.returncode, v1.output) == (0, "1\n")


def test_adbutils_screenshot_is_a_real_png_of_the_screen(device):
    image = device.screenshot(error_ok=False)
    assert image.size == (360, 800)
    assert image.getpixel((180, 790)) == (0, 0, 0)  # the navigation bar


def test_adbutils_dump_hierarchy_and_app_current(device):
    xml = device.dump_hierarchy()
    assert xml.startswith("<?xml") and 'content-desc="Settings"' in xml
    assert device.app_current().package == "com.google.android.apps.nexuslauncher"
    device.app_start("com.android.settings")
    assert device.app_current().activity == "com.android.settings.Settings"


def test_adbutils_sync_push_pull_stat_list(device):
    device.sync.push(b"payload", "/sdcard/Download/a.txt")
    assert device.sync.read_bytes("/storage/emulated/0/Download/a.txt") == b"payload"
    assert device.sync.stat("/sdcard/Download/a.txt").size == 7
    assert not device.sync.exists("/sdcard/Download/b.txt")
    assert "a.txt" in [f.path for f in device.sync.list("/sdcard/Download")]
    with pytest.raises(adbutils.AdbError, match="No such file or directory"):
        device.sync.read_bytes("/sdcard/none")


def test_adbutils_helpers_run_unchanged(device):
    assert device.window_size(landscape=False) == (360, 800)
    assert "com.android.settings" in device.list_packages()
    device.click(230, 600)  # the Files icon
    device.keyevent("KEYCODE_BACK")
    assert device.app_current().package == "com.google.android.apps.nexuslauncher"


def test_the_clock_database_is_real_sqlite_in_wal_mode(server, tmp_path):
    device = server.devices["emulator-5554"]
    device.add_alarm(7, 30)
    main = device.host_path(ALARMS_DB)
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "alarms.db").write_bytes(main.read_bytes())
    with pytest.raises(sqlite3.OperationalError, match="no such table"):  # all of it is still in the WAL
        sqlite3.connect(tmp_path / "alone" / "alarms.db").execute("SELECT count(*) FROM alarm_templates")
    (tmp_path / "alarms.db").write_bytes(main.read_bytes())
    (tmp_path / "alarms.db-wal").write_bytes(main.with_name("alarms.db-wal").read_bytes())
    rows = sqlite3.connect(tmp_path / "alarms.db").execute("SELECT hour, minutes FROM alarm_templates").fetchall()
    assert rows == [(7, 30)]


@pytest.mark.parametrize("line, expected", [
    ("echo 'a b' \"c $?\" d\\ e", [(None, ["echo", "a b", "c \0", "d e"])]),
    ("rm -f x; uiautomator dump y && echo success", [(None, ["rm", "-f", "x"]), (";", ["uiautomator", "dump", "y"]),
                                                    ("&&", ["echo", "success"])]),
    ("input text 'it'\"'\"'s <b>&|'", [(None, ["input", "text", "it's <b>&|"])]),
])
def test_command_lines_parse_as_sh_parses_them(line, expected):
    assert parse_command_line(line) == expected


@pytest.mark.parametrize("line", ["input text a|b", "input text a&b", "input text <b>", "echo $HOME", "echo `id`"])
def test_unquoted_shell_operators_fail_loudly(line):
    code, output = run_command_line(VirtualDevice(), line, COMMANDS)
    assert code == 2 and b"does not" in output[0][1]


@pytest.mark.parametrize("arg, typed", [("a%sb", "a b"), ("%%s", "% "), ("50%", "50%"), ("s%s%s", "s  ")])
def test_input_text_turns_percent_s_into_a_space_as_android_does(arg, typed):
    assert android_input_text(arg) == typed


def test_screens_render_what_the_dump_describes(server, device):
    device.app_start("com.android.settings")
    for _ in range(2):  # the launch splash
        device.dump_hierarchy()
    xml = device.dump_hierarchy()
    assert 'text="Wi-Fi"' in xml and 'checked="true"' in xml
    image = Image.open(io.BytesIO(device.shell(["screencap", "-p"], encoding=None))).convert("RGB")
    assert image.getpixel((300, 116)) == (0x2E, 0x7D, 0x32)  # the Wi-Fi switch's track, green: on
    device.shell("svc wifi disable")
    image = Image.open(io.BytesIO(device.shell(["screencap", "-p"], encoding=None))).convert("RGB")
    assert image.getpixel((338, 116)) == (0x9E, 0x9E, 0x9E)  # grey, the thumb moved left


def test_an_older_server_is_reached_with_host_transport():
    with FakeAdbServer([VirtualDevice()], version=40) as old:
        device = adbutils.AdbClient(old.host, old.port, socket_timeout=10).device("emulator-5554")
        assert device.shell("echo old") == "old"
        assert "host:transport:emulator-5554" in old.requests
        assert not any(r.startswith("host:tport") for r in old.requests)
