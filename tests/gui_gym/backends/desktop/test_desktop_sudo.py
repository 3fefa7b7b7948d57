"""The desktop's sudo behaves as Ubuntu's on OSWorld's VM: it asks for ``user``'s password,
refuses a wrong one (three tries), runs the command as root with the right one, and asks no more
in that terminal for a while; in a real terminal too. What that root may reach is attacked in
test_desktop_sandbox.py."""

from __future__ import annotations

import pytest

from gui_gym.actions import Action
from gui_gym.backends.desktop.client import Endpoint, ServerClient
from gui_gym.backends.desktop.sandbox import Sandbox, SandboxSpec
from gui_gym.backends.desktop.inside.sudo_command import parse
from gui_gym.runtime.waiting import wait_until


# openbox: these tests are about sudo, not the desktop around it (a light sandbox per module)
@pytest.fixture(scope="module")
def client():
    box = Sandbox(SandboxSpec(width=800, height=600, accessibility=False, shell="openbox"))
    box.start()
    yield ServerClient(Endpoint(socket_path=box.socket_path, token=box.token))
    box.stop()


def run(client: ServerClient, script: str) -> dict:
    return client.execute(script, shell=True, timeout_s=60)


def test_sudo_reads_its_options_as_sudo_does():
    assert parse(["-S", "apt-get", "install", "-y", "jq"]) == ({"user": "root", "stdin": True},
                                                                ["apt-get", "install", "-y", "jq"])
    assert parse(["-Eu", "root", "--", "ls", "-l"]) == ({"user": "root", "preserve_env": True}, ["ls", "-l"])
    assert parse(["--user=user", "-k", "id"]) == ({"user": "user", "reset_timestamp": True}, ["id"])
    assert parse(["-h"])[0]["help"] and parse(["-i"])[0]["login"]


def test_the_right_password_runs_the_command_as_root(client):
    done = run(client, "echo password | sudo -S id -u")
    assert (done["output"], done["error"], done["returncode"]) == ("0\n", "[sudo] password for user: ", 0)
    done = run(client, "echo password | sudo -S sh -c 'echo $HOME $USER $SUDO_USER; pwd'")
    assert done["output"] == "/root root user\n/home/user\n"  # sudo's environment, the caller's folder
    assert run(client, "printf 'password\\nfor the command\\n' | sudo -S cat")["output"] == "for the command\n"


def test_a_wrong_password_is_refused_three_times(client):
    done = run(client, "printf 'a\\nb\\nc\\n' | sudo -S id -u")
    assert done["output"] == "" and done["returncode"] == 1
    assert done["error"].count("Sorry, try again.") == 2 and done["error"].endswith("sudo: 3 incorrect password attempts\n")


def test_without_a_password_to_read_sudo_refuses(client):
    for script, message in (("sudo -n id", "sudo: a password is required\n"),
                            ("sudo id", "sudo: a terminal is required to read the password"),
                            ("sudo -S id < /dev/null", "sudo: no password was provided\n")):
        done = run(client, script)
        assert done["returncode"] == 1 and message in done["error"] and done["output"] == "", (script, done)


def test_a_right_password_holds_for_the_same_caller_until_sudo_k(client):
    done = run(client, "echo password | sudo -S true; sudo -n id -u; sudo -k; sudo -n id -u; echo $?")
    assert done["output"] == "0\n1\n" and "a password is required" in done["error"]
    assert run(client, "sudo -n id -u")["returncode"] == 1  # another shell: another ticket


def test_sudo_names_what_it_cannot_do(client):
    assert run(client, "echo password | sudo -S no-such-program")["error"].endswith(
        "sudo: no-such-program: command not found\n")
    assert run(client, "echo password | sudo -S -u nobody id")["error"].endswith("sudo: unknown user nobody\n")
    assert run(client, "echo password | sudo -S -u user id -u")["output"] == "1000\n"
    assert run(client, "echo password | sudo -S sh -c 'exit 7'")["returncode"] == 7


def test_apt_as_root_knows_no_repository_and_fails_cleanly(client):
    """The host's apt configuration does not show through: sudo's root finds the installed
    packages (dpkg's database) and no other."""
    assert run(client, "ls -A /etc/apt /etc/apt/sources.list.d")["output"] == \
        "/etc/apt:\napt.conf.d\npreferences.d\nsources.list.d\ntrusted.gpg.d\n\n/etc/apt/sources.list.d:\n"
    assert run(client, "ls -A /var/lib/apt/lists /var/cache/apt/archives")["output"] == \
        "/var/cache/apt/archives:\npartial\n\n/var/lib/apt/lists:\npartial\n"
    done = run(client, "echo password | sudo -S apt-get install -y gui-gym-no-such-package")
    assert done["returncode"] == 100 and "E: Unable to locate package gui-gym-no-such-package" in done["error"]


def test_sudo_in_a_terminal_asks_with_the_echo_off_and_relays_ctrl_c(client):
    """As an agent types it: the command, Enter, the password when sudo asks, Enter; then sudo
    runs as root without asking again in that terminal; Ctrl+C stops what sudo runs."""
    client.launch(["xterm", "-geometry", "80x10+0+0"])
    assert wait_until(lambda: "xterm" in client.execute("wmctrl -l -x", shell=True)["output"].lower(), 30)
    client.perform(Action.click(100, 60))
    client.perform(Action.type("sudo id -u > ~/uid.txt\n"))
    asking = wait_until(lambda: run(client, "pgrep -f [s]udo_command.py")["output"].split(), 30)
    terminal = run(client, f"ps -o tty= -p {asking[0]}")["output"].strip()
    assert wait_until(lambda: " -echo " in run(client, f"stty -F /dev/{terminal} -a")["output"], 30)
    client.perform(Action.type("password\n"))
    assert wait_until(lambda: client.get_file("/home/user/uid.txt") == b"0\n", 30)
    client.perform(Action.type("sudo id -un > ~/again.txt; sudo sleep 300; echo not reached > ~/after.txt\n"))
    assert wait_until(lambda: client.get_file("/home/user/again.txt") == b"root\n", 30)  # no second question
    assert wait_until(lambda: run(client, "pgrep -x sleep")["output"], 30)
    client.perform(Action.hotkey("ctrl", "c"))
    assert wait_until(lambda: not run(client, "pgrep -x sleep; pgrep -f [s]udo_command.py")["output"], 30)
    client.perform(Action.type("echo $? > ~/rc.txt\n"))
    assert wait_until(lambda: client.get_file("/home/user/rc.txt") == b"130\n", 30)  # sudo died of the signal too
    assert client.get_file("/home/user/after.txt") is None  # so the shell stopped the line, as with sudo
