"""The local provider's sandbox, for real: bubblewrap + Xvfb + openbox + our server.

One sandbox for the module (starting one takes about a second on an idle machine)."""

from __future__ import annotations

import sys
from pathlib import Path

import psutil
import pytest

from gui_gym.actions import Action
from gui_gym.backends.desktop.client import Endpoint, ServerClient, ServerError
from gui_gym.backends.desktop.sandbox import Sandbox, SandboxSpec
from gui_gym.waiting import wait_until


@pytest.fixture(scope="module")
def sandbox():
    box = Sandbox(SandboxSpec(width=800, height=600, accessibility=False))
    box.start()
    yield box
    box.stop()


@pytest.fixture(scope="module")
def client(sandbox):
    return ServerClient(Endpoint(socket_path=sandbox.socket_path, token=sandbox.token))


def test_every_request_needs_the_token(sandbox, client):
    assert client.screen_size() == (800, 600)
    for token in (None, "wrong"):
        stranger = ServerClient(Endpoint(socket_path=sandbox.socket_path, token=token))
        with pytest.raises(ServerError, match=r"HTTP 401: missing or wrong X-GUI-Gym-Token header"):
            stranger.screen_size()


def test_typed_text_with_quotes_and_shell_symbols_reaches_the_terminal_exactly(client):
    client.launch(["xterm", "-geometry", "80x10+0+0"])
    assert wait_until(lambda: "xterm" in client.execute("wmctrl -l -x", shell=True)["output"].lower(), 30)
    client.perform(Action.click(100, 60))
    command = """echo 'a > b' | cat > ~/f.txt; echo "x<y|z&w \\"q\\"" >> ~/f.txt\n"""
    client.perform(Action.type(command))
    assert wait_until(lambda: client.get_file("/home/user/f.txt") == b'a > b\nx<y|z&w "q"\n', 20)


def test_the_sandbox_is_private(client):
    assert client.execute("id -un; echo $HOME; hostname", shell=True)["output"] == "user\n/home/user\nosworld\n"
    reply = client.execute("echo hi > /home/user/h.txt && echo hi > /tmp/t.txt && touch /etc/gui-gym-probe", shell=True)
    assert "Read-only file system" in reply["error"] and reply["returncode"] != 0
    assert not Path("/home/user/h.txt").exists() and not Path("/tmp/t.txt").exists()
    assert not Path("/etc/gui-gym-probe").exists()
    interfaces = client.execute(["cat", "/proc/net/dev"])["output"]
    assert [line.split(":")[0].strip() for line in interfaces.splitlines()[2:]] == ["lo"]
    assert client.execute(["python", "-c", "import pyautogui; print(pyautogui.size())"])["output"].strip() == \
        "Size(width=800, height=600)"


def test_stopping_ends_every_process(sandbox, client):
    client.launch(["xterm"])
    started = psutil.Process(sandbox.pid).children(recursive=True)
    names = {p.name() for p in started}
    assert {"Xvfb", "openbox", "xterm"} <= names
    sandbox.stop()
    assert not [p for p in started if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    sandbox.stop()



def test_an_interpreter_in_a_private_folder_is_bound_back_read_only(monkeypatch):
    monkeypatch.setattr(sys, "prefix", "/tmp/checkout/.venv")
    command = Sandbox(SandboxSpec()).command(Path("/run/shared-of-the-session"))
    venv = str(Path("/tmp/checkout/.venv").resolve())
    binds = [i for i in range(len(command) - 2) if command[i:i + 3] == ["--ro-bind", venv, venv]]
    assert len(binds) == 1
    assert binds[0] > max(i for i, arg in enumerate(command) if arg == "--tmpfs")  # else the tmpfs hides it
    monkeypatch.setattr(sys, "prefix", "/opt/venv")
    assert not any(arg.startswith("/opt/venv") for arg in Sandbox(SandboxSpec()).command(Path("/run/x")))
