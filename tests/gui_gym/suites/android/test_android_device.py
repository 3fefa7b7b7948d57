"""Device state over adb as tasks read and write it: settings, clock, providers, files,
pulled and pushed SQLite, the clipboard, SMS through the emulator console, snapshots, UI."""

from __future__ import annotations

import datetime
import sqlite3

import pytest

from tests.fakes.android_world import fake_phone
from tests.fakes.app_data import db
from tests.fakes.virtual_device import ALARMS_DB
from gui_gym.errors import ActionExecutionError
from gui_gym.suites.android.device import DEVICE_TIME, Device

EXPENSES = "/data/data/com.arduia.expense/databases/accounting.db"


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


@pytest.fixture
def device(phone):
    return Device(phone.backend)


def test_settings_radios_and_the_clock(device, phone):
    assert device.setting("global", "wifi_on") == "1" and device.setting("secure", "never_set") == "null"
    device.set_radio("wifi", False)
    device.put_setting("system", "screen_brightness", "255")
    assert phone.device.settings["global"]["wifi_on"] == "0" and phone.device.settings["system"]["screen_brightness"] == "255"
    device.setup_datetime()
    device.set_datetime(DEVICE_TIME)
    assert abs(device.now_s() - DEVICE_TIME.timestamp()) < 5
    assert phone.device.timezone == "UTC" and phone.device.settings["global"]["auto_time"] == "0"
    device.advance_time(datetime.timedelta(minutes=-90))
    assert abs(device.now_s() - (DEVICE_TIME.timestamp() - 5400)) < 5


def test_root_is_asked_for_once(device, phone):
    phone.device.root = False
    device.ensure_root()
    assert phone.device.root and "root:" in phone.server.requests


def test_content_query_rows_keep_commas_inside_values(device, phone):
    phone.device.contacts += [("Doe, John", "555-0101"), ("Ann", "+1 (555) 0102")]
    assert device.contacts() == [("Doe, John", "5550101"), ("Ann", "15550102")]
    device.clear_contacts()
    assert device.contacts() == []
    device.add_contact("Mei Sato", "+15550123")  # the insert screen, then its Save button
    assert phone.device.contacts == [("Mei Sato", "+15550123")]


def test_databases_are_pulled_with_their_log_and_pushed_back_whole(device, phone):
    assert device.query(ALARMS_DB, "SELECT 1") is None  # the app never created it
    phone.device.add_alarm(6, 45)  # the row sits in alarms.db-wal until a checkpoint
    assert device.query(ALARMS_DB, "SELECT hour, minutes FROM alarm_templates WHERE hour = ?", (6,)) == \
        [{"hour": 6, "minutes": 45}]
    phone.device.drop_alarms()

    device.insert_rows(EXPENSES, "expense", [{"name": "Tea", "amount": 350, "category": 3, "note": "x",
                                              "created_date": 1, "modified_date": 1}], "pro expense")
    assert phone.device.host_path(EXPENSES).exists()  # opening the app created the table first
    with db(phone.device, EXPENSES) as connection:  # the app sees the row
        assert [dict(r) for r in connection.execute("SELECT name, amount FROM expense")] == [{"name": "Tea", "amount": 350}]
        connection.execute("INSERT INTO expense (name, amount, category, note, created_date, modified_date) "
                           "VALUES ('Bus', 275, 7, '', 2, 2)")
    assert [r["name"] for r in device.rows(EXPENSES, "expense")] == ["Tea", "Bus"]
    device.delete_all_rows(EXPENSES, "expense", "pro expense")
    assert device.rows(EXPENSES, "expense") == []
    with pytest.raises(ValueError, match="table 'missing' does not exist"):
        device.rows(EXPENSES, "missing")
    assert device.sqlite_on_device("/data/data/com.android.providers.telephony/databases/mmssms.db",
                                   "SELECT count(*) FROM sms;").strip() == "0"


def test_files(device, phone):
    device.make_dirs("/sdcard/Documents/deep/er")
    device.create_text_file("/sdcard/Documents/deep", "a.txt", "hello")
    assert device.read_text("/storage/emulated/0/Documents/deep/a.txt") == "hello\n"
    assert device.exists_in("/sdcard/Documents", "deep/er") and device.is_dir("/sdcard/Documents/deep")
    [info] = device.files_with_metadata("/sdcard/Documents/deep")
    assert (info.name, info.size) == ("a.txt", 6)
    device.copy_dir("/sdcard/Documents/deep", "/sdcard/Download/copy")
    assert device.names_in("/sdcard/Download/copy") == ["a.txt", "er"]
    device.clear_internal_storage()  # files go, folders stay
    assert device.names_in("/sdcard/Download/copy") == ["er"]
    device.clear_directory("/sdcard/Documents")
    assert device.names_in("/sdcard/Documents") == [] and phone.device.host_path("/sdcard/Documents").is_dir()
    with pytest.raises(RuntimeError, match="is not a valid directory"):
        device.files_with_metadata("/sdcard/nothing")


def test_clipboard_sms_and_snapshots(device, phone):
    device.set_clipboard("Order #12, 'quoted'")
    assert phone.device.clipboard == "Order #12, 'quoted'" and device.clipboard() == "Order #12, 'quoted'"
    device.receive_sms("+1 555-0100", "Meet at 5, ok?")
    [message] = device.received_sms()
    assert (message["address"], message["body"]) == ("+15550100", "Meet at 5, ok?")
    with device.console() as console:
        console.command("avd snapshot save clean")
        device.clear_sms()
        assert device.received_sms() == []
        console.command("avd snapshot load clean")
    assert len(device.received_sms()) == 1
    device.clear_sms()


def test_app_snapshots_and_apps(device, phone):
    assert not device.restore_app_snapshot("markor")  # none saved
    device.write_file("/data/data/net.gsantner.markor/files/settings.xml", b"<a/>")
    device.save_app_snapshot("markor")
    device.write_file("/data/data/net.gsantner.markor/files/settings.xml", b"<changed/>")
    assert device.restore_app_snapshot("markor")
    assert device.read_text("/data/data/net.gsantner.markor/files/settings.xml") == "<a/>"
    device.launch("clock")
    assert device.foreground() == ("com.google.android.deskclock", "com.android.deskclock.DeskClock")
    device.find_and_click("stopwatc")  # one edit away, any case
    assert any(e.content_description == "Start" for e in device.ui_elements())
    with pytest.raises(ActionExecutionError, match="no element labelled 'Nothing here'"):
        device.find_and_click("Nothing here", timeout_s=0.2)
    device.close_recents()
    assert phone.device.recents == []
    device.close_app("clock")
    assert device.foreground()[0] == "com.google.android.apps.nexuslauncher"


def test_device_needs_an_android_backend():
    with pytest.raises(TypeError, match="Android tasks need an AndroidBackend, received str"):
        Device("not a backend")


def test_database_helper_reads_what_the_app_wrote(phone):
    with pytest.raises(sqlite3.OperationalError):
        db(phone.device, "/data/data/none/x.db").execute("SELECT 1")
