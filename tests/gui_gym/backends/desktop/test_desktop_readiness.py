"""When the desktop is ready (`readiness`), for real on a sandbox (the light desktop: the checks
are the same on GNOME, where the expert solutions of tests/benchmarks/commands run): a reset
waits for what its setup launched, an evaluation for the command the agent left running."""

from __future__ import annotations

import pytest

from gui_gym.actions import Action
from gui_gym.backends.desktop.client import Endpoint, ServerClient
from gui_gym.backends.desktop.inside.readiness import home_signature
from gui_gym.backends.desktop.sandbox import Sandbox, SandboxSpec

LATE_WINDOW = "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; exec xterm -T late-window"
"""A program that works a while before it shows its window, as GIMP queries its plug-ins."""


@pytest.fixture(scope="module")
def client():
    box = Sandbox(SandboxSpec(width=800, height=600, accessibility=False, shell="openbox"))
    box.start()
    yield ServerClient(Endpoint(socket_path=box.socket_path, token=box.token))
    box.stop()


def windows(client: ServerClient) -> str:
    return client.execute("wmctrl -l", shell=True)["output"]


def test_the_reset_waits_until_a_launched_program_shows_its_window(client):
    client.launch(["sh", "-c", LATE_WINDOW])
    result = client.ready(60)
    assert result["ready"] and result["pending"] == [], result
    assert "late-window" in windows(client)


def test_a_launched_program_that_draws_nothing_does_not_hold_the_reset(client):
    client.launch(["sleep", "600"])  # a port forwarder, say
    assert client.ready(60)["ready"]


def test_the_evaluation_waits_for_the_command_the_agent_left_running_in_its_terminal(client):
    """``sleep 2; echo ... > file`` typed and entered: nothing on the screen changes while it
    runs, and the file is there once the desktop is idle."""
    client.launch(["xterm", "-T", "agent-terminal", "-geometry", "80x10+0+0"])
    assert client.ready(60)["ready"] and "agent-terminal" in windows(client)
    client.perform(Action.click(100, 60))
    client.perform(Action.type("sleep 2; echo written > ~/late.txt\n"))
    result = client.idle(20)
    assert result["ready"], result
    assert client.execute("cat ~/late.txt", shell=True)["output"] == "written\n"


def test_the_home_s_signature_changes_with_any_file_written_made_or_removed(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f.txt").write_text("x")
    before = home_signature(tmp_path)
    assert home_signature(tmp_path) == before
    (tmp_path / "a" / "f.txt").write_text("xy")
    after_write = home_signature(tmp_path)
    (tmp_path / "a" / "g.txt").write_text("")
    after_new = home_signature(tmp_path)
    (tmp_path / "a" / "g.txt").unlink()
    assert len({before, after_write, after_new, home_signature(tmp_path)}) == 4


def test_a_link_out_of_the_home_is_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (home / "link").symlink_to(outside)
    before = home_signature(home)
    (outside / "f.txt").write_text("x")
    assert home_signature(home) == before
