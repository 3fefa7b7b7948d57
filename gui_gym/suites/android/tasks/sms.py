"""Simple SMS Messenger tasks (AndroidWorld's ``single/sms.py`` over ``sms_validators``).

Success is read from the telephony provider (``content query --uri content://sms/sent``): a
message to the number (dashes and spaces aside) whose body fuzzily matches, sent within the
last five minutes of device time, with Simple SMS Messenger in the foreground (a screen still
showing "Sending..." is an emulator failure, not the agent's). Set-up empties the ``sms``
and ``threads`` tables with the device's ``sqlite3``, turns airplane mode off and makes
incoming messages arrive through the emulator console (``sms send``), so these tasks need an
emulator. Set-up waits for each incoming message to land, rather than sleeping, so the most
recent one is the one meant to be.
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from gui_gym.errors import InfraError
from gui_gym.suites.android import generation
from gui_gym.suites.android.device import Device
from gui_gym.suites.android.matching import fuzzy_match
from gui_gym.suites.android.tasks.base import AndroidWorldTask
from gui_gym.runtime.waiting import wait_until

SMS_APP = "com.simplemobiletools.smsmessenger"
WINDOW_MS = 5 * 60 * 1000


def _number(address: str) -> str:
    return address.replace("-", "").replace(" ", "")


def was_sent(messages: list[Mapping[str, str]], number: str, body: str, now_ms: int) -> bool:
    """Whether a message to `number` with `body` (fuzzy) was sent in the last five minutes."""
    return any(_number(m["address"]) == number and fuzzy_match(m["body"], body) and now_ms - int(m["date"]) <= WINDOW_MS
               for m in messages)


def same_message(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    return _number(a["address"]) == _number(b["address"]) and fuzzy_match(a["body"], b["body"])


def receive(device: Device, number: str, text: str, timeout_s: float = 30.0) -> None:
    """An SMS arrives from `number`; returns once it is in the inbox."""
    before = len(device.received_sms())
    device.receive_sms(number, text)
    if not wait_until(lambda: len(device.received_sms()) > before, timeout_s, interval_s=0.1):
        raise InfraError(f"the SMS from {number} did not reach the inbox within {timeout_s:g} s")


def set_heads_up(device: Device, on: bool) -> None:
    device.put_setting("global", "heads_up_notifications_enabled", "1" if on else "0")


class SimpleSMSSendSms(AndroidWorldTask):
    """A message `message` to `number` must have been sent from Simple SMS Messenger."""

    name = "SimpleSMSSendSms"
    app_names, complexity = ("simple sms messenger",), 1.2
    needs = ("emulator console",)
    send_wait_s = 5.0

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"number": generation.random_phone_number(rng), "message": generation.random_sentence(rng)}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.put_setting("global", "airplane_mode_on", "0")
        device.clear_sms()
        if was_sent(device.sent_sms(), self.params["number"], self.params["message"], device.now_s() * 1000):
            raise InfraError("the goal message is already in the sent box; its check could not tell a new one")

    def is_successful(self, device: Device) -> float:
        # the app may write the message a moment after the agent's last step: AndroidWorld waits
        # five seconds before it reads; this reads at once and waits only while it is not there
        sent = wait_until(lambda: was_sent(device.sent_sms(), self.params["number"], self.params["message"],
                                           device.now_s() * 1000), self.send_wait_s, interval_s=0.25)
        in_app = device.foreground()[0] == SMS_APP
        if any((e.text or "").startswith("Sending") for e in device.ui_elements()):
            raise InfraError("the message is stuck at sending: an Android/emulator problem, not the agent's")
        return float(bool(sent) and in_app)


class SimpleSmsSend(SimpleSMSSendSms):
    name = "SimpleSmsSend"
    template = "Send a text message using Simple SMS Messenger to {number} with message: {message}"


class SimpleSmsReplyMostRecent(SimpleSMSSendSms):
    name = "SimpleSmsReplyMostRecent"
    template = "Reply to the most recent text message using Simple SMS Messenger with message: {message}"

    def _other_message(self) -> str:
        return self.rng.choice([m for m in generation.SENTENCES if m != self.params["message"]])

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        set_heads_up(device, False)
        for _ in range(self.rng.randint(0, 5)):
            receive(device, generation.random_phone_number(self.rng), self._other_message())
        last = self._other_message()
        receive(device, self.params["number"], last)
        set_heads_up(device, True)
        newest = device.received_sms()[0]
        if newest["address"] != self.params["number"] and newest["body"] != last:
            raise InfraError("the most recent message is not the one just sent")


class SimpleSmsReply(SimpleSMSSendSms):
    name = "SimpleSmsReply"
    template = "Reply to {number} with message: {message} in Simple SMS Messenger"

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        set_heads_up(device, False)
        relevant_sent = False
        for _ in range(self.rng.randint(1, 5)):  # the message to reply to, somewhere among others
            if not relevant_sent and self.rng.choice((True, False)):
                receive(device, self.params["number"], self.rng.choice(generation.SENTENCES))
                relevant_sent = True
            receive(device, generation.random_phone_number(self.rng), self.rng.choice(generation.SENTENCES))
        if not relevant_sent:
            receive(device, self.params["number"], self.rng.choice(generation.SENTENCES))
        set_heads_up(device, True)


class SimpleSmsSendClipboardContent(SimpleSMSSendSms):
    name = "SimpleSmsSendClipboardContent"
    app_names = ("simple sms messenger", "clipper")
    template = "Send a message to {number} with the clipboard content in Simple SMS Messenger"

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.set_clipboard(self.params["message"])


class SimpleSmsSendReceivedAddress(SimpleSMSSendSms):
    """The address name2 just texted must go to name1 (both contacts)."""

    name, complexity = "SimpleSmsSendReceivedAddress", 1.8
    template = "Text the address of the event to {name1} that {name2} just sent me in Simple SMS Messenger"

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        name1 = generation.random_name(rng)
        return {"name1": name1, "number": generation.random_phone_number(rng),
                "name2": generation.random_name(rng, excluding=name1), "message": generation.random_address(rng)}

    def initialize_task(self, device: Device) -> None:
        set_heads_up(device, False)
        super().initialize_task(device)
        name2_number = generation.random_phone_number(self.rng)
        device.add_contact(self.params["name1"], self.params["number"])
        device.add_contact(self.params["name2"], name2_number)
        receive(device, name2_number, self.params["message"])
        set_heads_up(device, True)

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_contacts()


class SimpleSmsResend(SimpleSMSSendSms):
    """The message last sent to `name` must be sent once more (and nothing else)."""

    name = "SimpleSmsResend"
    template = "Resend the message I just sent to {name} in Simple SMS Messenger"
    GLITCH = "Sorry, there was a glitch, what was the last message you sent me?"

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"name": generation.random_name(rng), "number": generation.random_phone_number(rng),
                "message": generation.random_sentence(rng)}

    def initialize_task(self, device: Device) -> None:
        set_heads_up(device, False)
        super().initialize_task(device)
        device.add_contact(self.params["name"], self.params["number"])
        send(device, self.params["number"], self.params["message"])
        receive(device, self.params["number"], self.GLITCH)
        set_heads_up(device, True)
        self.before = device.sent_sms()

    def is_successful(self, device: Device) -> float:
        after = device.sent_sms()
        if len(after) != len(self.before) + 1:
            return 0.0
        return float(same_message(after[0], self.before[-1]))  # the newest first

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_contacts()


def send(device: Device, number: str, text: str, timeout_s: float = 20.0) -> None:
    """Send an SMS the way AndroidWorld's tools do: the messaging app opened on it by intent,
    then its send button ("SMS" in Simple SMS Messenger)."""
    before = len(device.sent_sms())
    device.send_sms_intent(number, text)
    if not wait_until(lambda: device.foreground()[0] == SMS_APP, timeout_s, interval_s=0.1):
        raise InfraError(f"Simple SMS Messenger did not open on the message to {number}; is it the default SMS app?")
    device.find_and_click("SMS", timeout_s)
    if not wait_until(lambda: len(device.sent_sms()) > before, timeout_s, interval_s=0.1):
        raise InfraError(f"the message to {number} did not reach the sent box within {timeout_s:g} s")


TASKS = (SimpleSmsSend, SimpleSmsReplyMostRecent, SimpleSmsReply, SimpleSmsSendClipboardContent,
         SimpleSmsSendReceivedAddress, SimpleSmsResend)
