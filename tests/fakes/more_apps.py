"""The virtual device's other apps: AndroidWorld's installed apps, Chrome and the SMS app.

Most of them show a title bar and whatever lines a test puts on screen (`GenericApp.lines`):
tasks on them read app data, not the screen. Chrome shows a page (`ChromeApp.page`, the texts
a loaded page shows). Simple SMS Messenger opens a compose screen on an ``SENDTO`` intent
whose "SMS" button sends the message into the telephony provider, as the real app does when
AndroidWorld's set-up sends a message for the resend task.
"""

from __future__ import annotations

from .app_data import FakeApp, create_app_data
from .views import BAR_BOTTOM, W, App, Node, button, text_view

SMS_PACKAGE = "com.simplemobiletools.smsmessenger"


class GenericApp(App):
    """An app with a title bar and lines of text."""

    def __init__(self, device, fake: FakeApp) -> None:
        self.fake = fake
        self.package, self.label = fake.package, fake.label
        self.lines: list[str] = []
        self.onboarding: list[str] = []
        """Buttons of the first-run screens, one per screen, shown after the data is cleared."""
        self.pending: list[str] = []
        super().__init__(device)

    @property
    def activity(self) -> str:
        return self.fake.activity

    def nodes(self) -> list[Node]:
        if self.pending:
            return [button(self.pending[0], (100, 600, 260, 650), lambda: self.pending.pop(0))]
        return [text_view(line, (16, BAR_BOTTOM + 40 * n, W - 16, BAR_BOTTOM + 40 * (n + 1)))
                for n, line in enumerate(self.lines)]

    def launched(self) -> None:
        create_app_data(self.fake, self.device.host_path)

    def clear_data(self) -> None:
        super().clear_data()
        self.lines, self.pending = [], list(self.onboarding)
        self.device.remove_app_data(self.package)


class ChromeApp(App):
    package, label = "com.android.chrome", "Chrome"
    activity = "com.google.android.apps.chrome.Main"

    def reset(self) -> None:
        super().reset()
        self.url = ""
        self.page: list[str] = []

    def title(self) -> str:
        return self.url or "New tab"

    def nodes(self) -> list[Node]:
        return [Node("android.webkit.WebView", (0, BAR_BOTTOM, W, 700), children=[
            text_view(text, (16, BAR_BOTTOM + 40 * n, W - 16, BAR_BOTTOM + 40 * (n + 1)))
            for n, text in enumerate(self.page)])]

    def clear_data(self) -> None:
        self.reset()


class SmsApp(App):
    package, label = SMS_PACKAGE, "SMS Messenger"

    def reset(self) -> None:
        super().reset()
        self.compose: tuple[str, str] | None = None

    @property
    def activity(self) -> str:
        return ("com.simplemobiletools.smsmessenger.activities.ThreadActivity" if self.compose
                else "com.simplemobiletools.smsmessenger.activities.MainActivity")

    def open_compose(self, number: str, body: str) -> None:
        self.compose = (number, body)

    def nodes(self) -> list[Node]:
        if self.compose is None:
            return [text_view(f"{m['address']}: {m['body']}", (16, BAR_BOTTOM + 48 * n, W - 16, BAR_BOTTOM + 48 * (n + 1)))
                    for n, m in enumerate(self.device.sms_messages()[:10])]
        number, body = self.compose
        return [text_view(number, (16, 90, W - 16, 130)), text_view(body, (16, 600, 280, 650)),
                button("SMS", (290, 600, 350, 650), self.send)]

    def send(self) -> None:
        number, body = self.compose
        self.device.add_sms(number, body, sent=True)
        self.compose = None

    def back(self) -> bool:
        if self.compose is not None:
            self.compose = None
            return True
        return False
