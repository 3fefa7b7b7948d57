"""Pieces of the sandboxed session that need no display: command normalisation (OSWorld's
conventions), the Xauthority record, the sandbox's account files and command line."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from gui_gym.backends.desktop.sandbox import Sandbox, SandboxSpec, write_account_files
from gui_gym.backends.desktop.session import normalize_command, xauthority_entry


def test_commands_follow_osworld_conventions(monkeypatch):
    monkeypatch.setenv("HOME", "/home/user")
    assert normalize_command("ls -l '~/My Docs'", shell=False) == ["ls", "-l", "/home/user/My Docs"]
    assert normalize_command(["cat", "~/a.txt"], shell=False) == ["cat", "/home/user/a.txt"]
    assert normalize_command(["echo", "a b"], shell=True) == "echo 'a b'"
    with pytest.raises(ValueError, match="empty command"):
        normalize_command([], shell=False)


def test_xauthority_record_layout():
    record = xauthority_entry("osworld", "0", b"\x01" * 16)
    family, host_len = struct.unpack(">HH", record[:4])
    assert family == 256 and record[4:4 + host_len] == b"osworld"
    assert record.endswith(struct.pack(">H", 16) + b"\x01" * 16) and b"MIT-MAGIC-COOKIE-1" in record


def test_account_files_make_uid_1000_the_user(tmp_path: Path):
    write_account_files(tmp_path)
    passwd = (tmp_path / "passwd").read_text().splitlines()
    assert passwd[-1] == "user:x:1000:1000:user:/home/user:/bin/bash"
    assert [line for line in passwd if line.split(":")[2] == "1000"] == [passwd[-1]]
    assert (tmp_path / "group").read_text().splitlines()[-1] == "user:x:1000:"


def test_sandbox_command_line(tmp_path: Path):
    offline = Sandbox(SandboxSpec()).command(tmp_path)
    assert offline[0] == "bwrap" and "--unshare-net" in offline and "--die-with-parent" in offline
    assert offline[offline.index("--ro-bind") + 1:offline.index("--ro-bind") + 3] == ["/", "/"]
    for private in ("/tmp", "/home", "/run"):
        assert offline[offline.index(private) - 1] == "--tmpfs"
    online = Sandbox(SandboxSpec(network=True, accessibility=False)).command(tmp_path)
    assert "--unshare-net" not in online and online[-1] == "--no-a11y"
