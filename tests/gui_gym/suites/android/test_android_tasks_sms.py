"""Simple SMS Messenger tasks on the virtual phone: incoming messages through the emulator
console, contacts and a sent message through the apps' screens, success read from the
telephony provider with the SMS app in front."""

from __future__ import annotations

import pytest

from tests.fakes.android_world import fake_phone
from gui_gym.suites.android.tasks.sms import SimpleSMSSendSms
from gui_gym.errors import InfraError

SMS = "com.simplemobiletools.smsmessenger"


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p, pytest.MonkeyPatch.context() as patch:
        patch.setattr(SimpleSMSSendSms, "send_wait_s", 0.2)  # a message not sent is not waited for long
        yield p


def reply(phone, task, body=None, in_app=True):
    phone.device.add_sms(task.params["number"], body if body is not None else task.params["message"], sent=True)
    if in_app:
        phone.device.show(SMS)


def test_send(phone):
    phone.device.add_sms("+15550000", "old", sent=True)
    task = phone.task("SimpleSmsSend", seed=1)
    assert phone.device.sms_messages() == [] and phone.device.settings["global"]["airplane_mode_on"] == "0"
    assert phone.score(task) == 0.0
    reply(phone, task, in_app=False)
    assert phone.score(task) == 0.0  # sent, but Simple SMS Messenger is not in front
    phone.device.show(SMS)
    assert phone.score(task) == 1.0
    phone.device.clock_offset_s += 6 * 60  # five minutes later it is an old message
    assert phone.score(task) == 0.0


def test_reply_most_recent(phone):
    task = phone.task("SimpleSmsReplyMostRecent", seed=2)
    inbox = phone.device.sms_messages(1)
    assert inbox and inbox[0]["address"] == task.params["number"]
    assert phone.device.settings["global"]["heads_up_notifications_enabled"] == "1"
    reply(phone, task, body=task.params["message"] + "!")  # fuzzy match
    assert phone.score(task) == 1.0


def test_reply(phone):
    task = phone.task("SimpleSmsReply", seed=3)
    assert task.params["number"] in {m["address"] for m in phone.device.sms_messages(1)}
    reply(phone, task, body="Something else entirely.")
    assert phone.score(task) == 0.0
    reply(phone, task)
    assert phone.score(task) == 1.0


def test_send_clipboard_content(phone):
    task = phone.task("SimpleSmsSendClipboardContent", seed=4)
    assert phone.device.clipboard == task.params["message"] and phone.score(task) == 0.0
    reply(phone, task)
    assert phone.score(task) == 1.0


def test_send_received_address(phone):
    task = phone.task("SimpleSmsSendReceivedAddress", seed=5)
    names = [name for name, _ in phone.device.contacts]
    assert names == [task.params["name1"], task.params["name2"]]
    [received] = phone.device.sms_messages(1)
    assert received["body"] == task.params["message"]
    reply(phone, task)
    assert phone.score(task) == 1.0
    task.teardown(phone.backend)
    assert phone.device.contacts == []


def test_resend(phone):
    task = phone.task("SimpleSmsResend", seed=6)
    [sent] = phone.device.sms_messages(2)  # sent at set-up through the app's compose screen
    assert (sent["address"], sent["body"]) == (task.params["number"], task.params["message"])
    assert phone.score(task) == 0.0
    phone.device.add_sms(task.params["number"], task.params["message"], sent=True)
    assert phone.score(task) == 1.0
    phone.device.add_sms(task.params["number"], task.params["message"], sent=True)
    assert phone.score(task) == 0.0  # sent twice


def test_a_message_stuck_at_sending_is_the_emulators_fault(phone):
    task = phone.task("SimpleSmsSend", seed=7)
    app = phone.device.show("net.gsantner.markor")
    app.lines = ["Sending..."]
    with pytest.raises(InfraError, match="stuck at sending"):
        phone.score(task)
    app.lines = []
