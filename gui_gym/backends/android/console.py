"""The Android emulator's console: the telnet-style text protocol on its console port.

Each emulator listens on loopback at its console port (the number in its serial,
``emulator-5554``; its adb port is the next one). The console greets with lines ending in
``OK``; when it asks for authentication, ``auth <token>`` with the token from
``~/.emulator_console_auth_token`` (the emulator writes that file on its first start) unlocks
it. Every command answers zero or more lines, then ``OK`` or ``KO: <reason>``. This is what
``adb emu <command>`` does; gui-gym uses it for snapshots (``avd snapshot save|load <name>``),
incoming SMS (``sms send <number> <text>``) and shutting an emulator down (``kill``).
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

from gui_gym.errors import ActionExecutionError, InfraError, MissingResourceError

TOKEN_FILE = Path("~/.emulator_console_auth_token")


class ConsoleError(ActionExecutionError):
    """The console answered ``KO``: the command was refused."""


class EmulatorConsole:
    """One connection to an emulator console. ``with EmulatorConsole(5554) as c: c.command("ping")``."""

    def __init__(self, port: int, host: str = "127.0.0.1", token_file: str | os.PathLike | None = None,
                 timeout_s: float = 30.0) -> None:
        self.port, self.host, self.timeout_s = port, host, timeout_s
        self.token_file = Path(token_file if token_file is not None else TOKEN_FILE).expanduser()
        self._sock: socket.socket | None = None
        self._buffer = b""

    @classmethod
    def for_serial(cls, serial: str, **kwargs) -> "EmulatorConsole":
        """The console of a local emulator named ``emulator-<console port>``."""
        match = re.fullmatch(r"emulator-(\d+)", serial or "")
        if match is None:
            raise MissingResourceError(
                f"device {serial!r} is not a local emulator (serial emulator-<port>), so it has no emulator "
                "console; this needs an Android emulator")
        return cls(int(match.group(1)), **kwargs)

    def __enter__(self) -> "EmulatorConsole":
        self.connect()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def connect(self) -> None:
        try:
            self._sock = socket.create_connection((self.host, self.port), timeout=self.timeout_s)
        except OSError as exc:
            raise InfraError(f"the emulator console at {self.host}:{self.port} does not answer ({exc})") from None
        banner = self._read_reply()
        if any("Authentication required" in line for line in banner):
            token = self.token_file.read_text().strip() if self.token_file.is_file() else ""
            if not token:
                raise MissingResourceError(
                    f"the emulator console asks for its auth token, and {self.token_file} holds none; the emulator "
                    "writes it on its first start (or give token_file=)")
            self.command(f"auth {token}")

    def command(self, text: str) -> list[str]:
        """Send one command; the lines it answered before ``OK``. ConsoleError on ``KO``."""
        if self._sock is None:
            self.connect()
        if "\n" in text or "\r" in text:
            raise ValueError(f"a console command is one line, received {text!r}")
        try:
            self._sock.sendall(text.encode() + b"\n")
        except OSError as exc:
            raise InfraError(f"the emulator console at port {self.port} dropped the connection ({exc})") from None
        return self._read_reply()

    def _read_reply(self) -> list[str]:
        lines: list[str] = []
        while True:
            line = self._read_line()
            if line == "OK" or line.startswith("OK:"):
                return lines
            if line.startswith("KO"):
                raise ConsoleError(f"the emulator console refused it: {line[2:].lstrip(': ') or 'KO'}")
            lines.append(line)

    def _read_line(self) -> str:
        while b"\n" not in self._buffer:
            try:
                chunk = self._sock.recv(4096)
            except OSError as exc:
                raise InfraError(f"the emulator console at port {self.port} did not answer ({exc})") from None
            if not chunk:
                raise InfraError(f"the emulator console at port {self.port} closed the connection")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode(errors="replace").rstrip("\r")

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock, self._buffer = None, b""
