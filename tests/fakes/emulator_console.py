"""The emulator console of a virtual device: the real console's telnet-style text protocol.

On connect it greets as the emulator does, asks for ``auth <token>`` (the token the emulator
keeps in ``~/.emulator_console_auth_token``), then answers commands with lines and ``OK`` or
``KO: <reason>``. Commands: ``auth``, ``help``, ``ping``, ``avd status|name``, ``avd snapshot
save|load|list|delete <name>`` (the whole device state, kept in a folder of snapshots),
``sms send <number> <text>`` (an incoming SMS in the telephony provider), ``gsm call``,
``kill`` (calls `on_kill`) and ``quit``.
"""

from __future__ import annotations

import shutil
import socketserver
import threading
from pathlib import Path
from typing import Callable

from .loopback_tcp import LoopbackTCPService
from .virtual_device import VirtualDevice

HELP = ("Android console commands:\n\n    help|h|?         print a list of commands\n    avd              control "
        "virtual device execution\n    sms              SMS related commands\n    kill             kill the emulator "
        "instance\n    ping             check if the emulator is alive\n")


class ConsoleServer(LoopbackTCPService):
    """``ConsoleServer(device, token, snapshots_dir).start()`` serves the console on loopback."""

    def __init__(self, device: VirtualDevice, token: str, snapshots_dir: Path, port: int = 0, avd_name: str = "Fake",
                 on_kill: Callable[[], None] | None = None, token_file: str = "~/.emulator_console_auth_token") -> None:
        self.device, self.token, self.snapshots_dir = device, token, Path(snapshots_dir)
        self.avd_name, self.on_kill, self.token_file = avd_name, on_kill, token_file
        self.commands: list[str] = []
        outer = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                try:
                    outer._serve(self.rfile, self.wfile)
                except (ConnectionError, OSError):
                    pass

        super().__init__(Handler, port, name="fake-console", wait_for_clients=False)

    # ---- the protocol ------------------------------------------------------------------------

    def _serve(self, rfile, wfile) -> None:
        def send(*lines: str) -> None:
            wfile.write("".join(f"{line}\r\n" for line in lines).encode())
            wfile.flush()

        authed = not self.token
        if authed:
            send("Android Console: type 'help' for a list of commands", "OK")
        else:
            send("Android Console: Authentication required", "Android Console: type 'auth <auth_token>' to authenticate",
                 "Android Console: you can find your <auth_token> in ", f"'{self.token_file}'", "OK")
        for raw in rfile:
            line = raw.decode(errors="replace").strip()
            if not line:
                continue
            self.commands.append(line)
            words = line.split()
            if words[0] == "auth":
                if len(words) == 2 and words[1] == self.token:
                    authed = True
                    send("Android Console: type 'help' for a list of commands", "OK")
                else:
                    send("KO: authentication token does not match ~/.emulator_console_auth_token")
                continue
            if not authed:
                send("KO: unknown command, try 'help'")
                continue
            if words[0] in ("quit", "exit"):
                return
            if words[0] == "kill":
                send("OK: killing emulator, bye bye")
                if self.on_kill is not None:
                    threading.Thread(target=self.on_kill, daemon=True).start()
                return
            try:
                reply = self._command(words, line)
            except ValueError as exc:
                send(f"KO: {exc}")
            else:
                send(*reply, "OK")

    def _command(self, words: list[str], line: str) -> list[str]:
        device = self.device
        if words[0] in ("help", "h", "?"):
            return HELP.rstrip("\n").split("\n")
        if words[0] == "ping":
            return ["I am alive!"]
        if words[:2] == ["avd", "status"]:
            return ["virtual device is running"]
        if words[:2] == ["avd", "name"]:
            return [self.avd_name]
        if words[:2] == ["avd", "snapshot"] and len(words) >= 3:
            return self._snapshot(words[2], words[3] if len(words) > 3 else None)
        if words[:2] == ["sms", "send"] and len(words) >= 4:
            text = line.split(None, 3)[3]
            with device.lock:
                device.add_sms(words[2], text, sent=False)
            return []
        if words[:2] == ["gsm", "call"] and len(words) == 3:
            return []
        raise ValueError("unknown command, try 'help'")

    def _snapshot(self, verb: str, name: str | None) -> list[str]:
        if verb == "list":
            names = sorted(p.name for p in self.snapshots_dir.iterdir()) if self.snapshots_dir.is_dir() else []
            return ["List of snapshots present on all disks:", *names]
        if not name:
            raise ValueError(f"avd snapshot {verb} needs a snapshot name")
        folder = self.snapshots_dir / name
        with self.device.lock:
            if verb == "save":
                self.snapshots_dir.mkdir(parents=True, exist_ok=True)
                self.device.save_snapshot(folder)
            elif verb == "load":
                if not (folder / "state.json").is_file():
                    raise ValueError(f"could not find snapshot with name '{name}'")
                self.device.load_snapshot(folder)
            elif verb == "delete":
                shutil.rmtree(folder, ignore_errors=True)
            else:
                raise ValueError(f"bad snapshot sub-command {verb!r}")
        return []


def serial_for(console: ConsoleServer) -> str:
    return f"emulator-{console.port}"


