"""Pieces of the sandboxed session that need no display: command normalisation (OSWorld's
conventions), the Xauthority record, the sandbox's accounts, id maps and command line."""

from __future__ import annotations

import shlex
import struct
from pathlib import Path

import pytest

from gui_gym.backends.desktop.accounts import HOST_ID_BASE, account_files, id_map
from gui_gym.backends.desktop.limits import SandboxLimits
from gui_gym.backends.desktop.sandbox import Sandbox, SandboxSpec
from gui_gym.backends.desktop.inside.commands import RUN_SCRIPT, normalize_command
from gui_gym.backends.desktop.inside.session import xauthority_entry


def test_commands_follow_osworld_conventions(monkeypatch):
    monkeypatch.setenv("HOME", "/home/user")
    assert normalize_command("ls -l '~/My Docs'", shell=False) == ["ls", "-l", "/home/user/My Docs"]
    assert normalize_command(["cat", "~/a.txt"], shell=False) == ["cat", "/home/user/a.txt"]
    assert normalize_command(["echo", "a b"], shell=True) == "echo 'a b'"
    with pytest.raises(ValueError, match="empty command"):
        normalize_command([], shell=False)


def test_python_lines_of_task_files_run_isolated():
    assert normalize_command(["python", "-c", "import pyautogui"], shell=False, setup=True) == [
        "python", "-I", "-c", "import pyautogui"]
    assert normalize_command(["python3", "-c", "x"], shell=False, setup=True)[:2] == ["python3", "-I"]
    assert normalize_command(["python", "-c", "x"], shell=False) == ["python", "-c", "x"]  # a getter's: the user's own
    assert normalize_command(["python3", "/home/user/a.py", "-n"], shell=False) == [
        "python3", "-I", "-c", RUN_SCRIPT, "/home/user/a.py", "-n"]
    assert normalize_command("python /home/user/Desktop/script.py", shell=True) == shlex.join(
        ["python", "-I", "-c", RUN_SCRIPT, "/home/user/Desktop/script.py"])
    assert normalize_command("python a.py | grep x", shell=True) == "python a.py | grep x"  # not one simple command
    assert normalize_command(["python", "-m", "pip"], shell=False) == ["python", "-m", "pip"]


def test_xauthority_record_layout():
    record = xauthority_entry("osworld", "0", b"\x01" * 16)
    family, host_len = struct.unpack(">HH", record[:4])
    assert family == 256 and record[4:4 + host_len] == b"osworld"
    assert record.endswith(struct.pack(">H", 16) + b"\x01" * 16) and b"MIT-MAGIC-COOKIE-1" in record


def test_account_files_name_the_sandboxs_five_ids():
    """The server's root first (``root`` is uid 0 to whoever looks the name up), then the root
    sudo gives, named root too (what it makes lists as root's), the evaluator's runs, the display
    and the user."""
    files = account_files()
    passwd = files["passwd"].splitlines()
    assert passwd[:5] == ["root:x:0:0:root:/root:/usr/sbin/nologin", "root:x:997:997:root:/root:/bin/bash",
                          "gui-gym-eval:x:998:998:gui-gym-eval:/nonexistent:/usr/sbin/nologin",
                          "gui-gym-display:x:999:999:gui-gym-display:/nonexistent:/usr/sbin/nologin",
                          "user:x:1000:1000:user:/home/user:/bin/bash"]
    for uid in ("0", "997", "998", "999", "1000"):
        assert len([line for line in passwd if line.split(":")[2] == uid]) == 1
    assert files["group"].splitlines()[4] == "user:x:1000:"


def test_each_sandbox_maps_its_ids_to_host_ids_of_its_own():
    first, second = id_map(4242).splitlines(), id_map(4243).splitlines()
    hosts = [int(line.split()[1]) for line in first + second]
    assert [line.split()[0] for line in first] == ["0", "997", "998", "999", "1000"]
    assert len(set(hosts)) == 10 and min(hosts) >= HOST_ID_BASE and max(hosts) < 2 ** 31


def test_sandbox_command_line():
    fds = {"passwd": 5, "group": 6, "token": 7, "ready": 8}
    offline = Sandbox(SandboxSpec(limits=SandboxLimits(tmp_mib=64))).command(fds)
    assert offline[0] == "bwrap" and {"--unshare-net", "--die-with-parent", "--clearenv"} <= set(offline)
    assert "/" not in offline[offline.index("--ro-bind") + 1:offline.index("--ro-bind") + 2]  # no host root
    assert offline.count("--cap-add") == 6 and offline[offline.index("--cap-drop") + 1] == "ALL"
    for private in ("/tmp", "/home", "/run", "/var/tmp", "/dev/shm"):
        at = offline.index(private, offline.index("--tmpfs") - 1)
        assert offline[at - 1] == "--tmpfs" and offline[at - 3] == "--size"
    assert offline[offline.index("/tmp") - 2] == str(64 << 20)
    assert offline[offline.index("--token-fd") + 1] == "7" and offline[offline.index("--ready-fd") + 1] == "8"
    online = Sandbox(SandboxSpec(network=True, accessibility=False)).command(fds | {"resolv": 9})
    assert "--unshare-net" in online and online[-1] == "--no-a11y"  # the network comes through slirp4netns
    assert online[online.index("/etc/resolv.conf") - 2:online.index("/etc/resolv.conf")] == ["--ro-bind-data", "9"]
