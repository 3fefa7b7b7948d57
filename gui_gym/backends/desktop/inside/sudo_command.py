"""The desktop's ``sudo``: the program the agent runs, as ``user``, in place of Ubuntu's.

OSWorld's VM lets ``user`` become root with ``sudo`` and the password "password", and agents
trained there use it: ``sudo apt-get ...`` asks ``[sudo] password for user:``, a wrong password
gets "Sorry, try again.", three end it, the right one runs the command as root and is not asked
again for 15 minutes in that terminal. In the sandbox no program can raise its own privileges
(bubblewrap sets ``no_new_privs``), so this one asks our server's sudo service (`sudo.py`), on a
Unix socket, to run the command: it reads sudo's options, sends the command, its environment, its
standard streams and its folder (as descriptors), reads the password when the service asks for
it (from the terminal with echo off, or from standard input with ``-S``), relays the signals a
terminal sends (Ctrl+C) and exits with the command's status. The service checks the password
and runs the command; nothing here is trusted.

Run as a script, by path, with ``python -I -S`` (the session's ``sudo`` on the PATH does): the
standard library only, and quick to start.
"""

from __future__ import annotations

import array
import json
import os
import signal
import socket
import sys
import termios

SOCKET = "/run/gui-gym-sudo/socket"
"""Where the server's sudo service listens (a folder only the server may change)."""
PROMPT = "[sudo] password for %p: "
VERSION = "Sudo version 1.9.9"
"""Ubuntu 22.04's, as ``sudo -V`` prints it on the VM."""
USAGE = """usage: sudo -h | -K | -k | -V
usage: sudo -v [-ABknS] [-g group] [-h host] [-p prompt] [-u user]
usage: sudo -l [-ABknS] [-g group] [-h host] [-p prompt] [-U user] [-u user] [command]
usage: sudo [-ABbEHknPS] [-C num] [-D directory] [-g group] [-h host] [-p prompt] [-R directory] [-T timeout]
            [-u user] [VAR=value] [-i|-s] [<command>]"""
FLAGS = {"S": "stdin", "n": "non_interactive", "E": "preserve_env", "H": "set_home", "i": "login", "s": "shell",
         "k": "reset_timestamp", "K": "remove_timestamp", "v": "validate", "l": "list", "h": "help",
         "V": "version", "A": None, "B": None, "P": None}
"""Short flags -> the option they set (None: accepted and without effect here)."""
LONG = {"stdin": "S", "non-interactive": "n", "preserve-env": "E", "set-home": "H", "login": "i", "shell": "s",
        "reset-timestamp": "k", "remove-timestamp": "K", "validate": "v", "list": "l", "help": "h",
        "version": "V", "askpass": "A", "bell": "B", "preserve-groups": "P"}
WITH_VALUE = {"u": "user", "p": "prompt", "g": "group", "C": None, "D": None, "h": None, "R": None, "T": None,
              "U": None}
LONG_WITH_VALUE = {"user": "u", "prompt": "p", "group": "g", "close-from": "C", "chdir": "D", "host": "h",
                   "chroot": "R", "command-timeout": "T", "other-user": "U"}
RELAYED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
"""Signals passed on to the command, as sudo relays them."""
MAX_MESSAGE = 1 << 16


class Usage(Exception):
    """A command line sudo refuses (the message, then the usage, exit status 1)."""


def parse(argv: list[str]) -> tuple[dict, list[str]]:
    """sudo's options and the command (with ``VAR=value`` words before it kept in the command)."""
    options: dict = {"user": "root"}
    rest = list(argv)
    while rest:
        word = rest[0]
        if word == "--":
            rest.pop(0)
            break
        if not word.startswith("-") or word == "-":
            break
        rest.pop(0)
        if word.startswith("--"):
            name, has_value, value = word[2:].partition("=")
            if name in LONG:
                _flag(options, LONG[name])
            elif name in LONG_WITH_VALUE:
                if not has_value:
                    if not rest:
                        raise Usage(f"option '--{name}' requires an argument")
                    value = rest.pop(0)
                _value(options, LONG_WITH_VALUE[name], value)
            else:
                raise Usage(f"unrecognized option '--{name}'")
            continue
        letters = word[1:]
        while letters:
            letter, letters = letters[0], letters[1:]
            if letter == "h" and not letters:  # -h alone is help; -hHOST names a host
                _flag(options, letter)
            elif letter in WITH_VALUE:
                value = letters or (rest.pop(0) if rest else None)
                if value is None:
                    raise Usage(f"option requires an argument -- '{letter}'")
                _value(options, letter, value)
                letters = ""
            elif letter in FLAGS:
                _flag(options, letter)
            else:
                raise Usage(f"invalid option -- '{letter}'")
    return options, rest


def _flag(options: dict, letter: str) -> None:
    if FLAGS[letter]:
        options[FLAGS[letter]] = True


def _value(options: dict, letter: str, value: str) -> None:
    if WITH_VALUE[letter]:
        options[WITH_VALUE[letter]] = value


def main(argv: list[str]) -> int:
    try:
        options, command = parse(argv)
    except Usage as exc:
        print(f"sudo: {exc}\n{USAGE}", file=sys.stderr)
        return 1
    if options.get("help"):
        print(f"sudo - execute a command as another user\n\n{USAGE}")
        return 0
    if options.get("version"):
        print(VERSION)
        return 0
    if options.get("remove_timestamp") or (options.get("reset_timestamp") and not command
                                          and not options.get("validate") and not options.get("list")):
        op = "forget"
    elif options.get("validate"):
        op = "validate"
    elif options.get("list"):
        op = "list"
    elif command or options.get("login") or options.get("shell"):
        op = "run"
    else:
        print(USAGE, file=sys.stderr)
        return 1
    if os.getuid() == 0 and op == "run":  # root needs no one's leave
        command = command or ["/bin/bash", *(["-l"] if options.get("login") else [])]
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            print(f"sudo: {command[0]}: {exc.strerror}", file=sys.stderr)
            return 1
    request = {"op": op, "command": command, "env": dict(os.environ), "options": options}
    try:
        service = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        service.connect(SOCKET)
    except OSError as exc:
        print(f"sudo: the desktop's sudo service is not reachable: {exc.strerror}", file=sys.stderr)
        return 1
    with service:
        try:
            return _converse(service, request, options)
        except KeyboardInterrupt:  # Ctrl+C before the command started: sudo ends quietly
            print(file=sys.stderr)
            return 1


def _converse(service: socket.socket, request: dict, options: dict) -> int:
    folder = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    fds = array.array("i", [0, 1, 2, folder])
    service.sendmsg([json.dumps(request).encode() + b"\n"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
    os.close(folder)
    replies = service.makefile("rb")
    for line in replies:
        message = json.loads(line[:MAX_MESSAGE])
        if "say" in message:
            print(message["say"], file=sys.stderr, flush=True)
        if "print" in message:
            print(message["print"], flush=True)
        if message.get("auth") == "needed":
            password = _password(options)
            if password is None:
                return 1
            service.sendall(json.dumps({"password": password}).encode() + b"\n")
        if message.get("started"):
            for number in RELAYED:
                signal.signal(number, lambda received, _frame: _relay(service, received))
            signal.signal(signal.SIGTSTP, signal.SIG_IGN)  # stopping sudo would not stop what it runs
        if "signal" in message:  # the command died of a signal: so does sudo, and the shell sees it
            signal.signal(int(message["signal"]), signal.SIG_DFL)
            os.kill(os.getpid(), int(message["signal"]))
        if "exit" in message:
            return int(message["exit"])
    print("sudo: the sudo service ended the conversation", file=sys.stderr)
    return 1


def _relay(service: socket.socket, number: int) -> None:
    try:
        service.sendall(json.dumps({"signal": number}).encode() + b"\n")
    except OSError:
        pass


def _password(options: dict) -> str | None:
    """The password, as sudo reads it; None (after sudo's message) when there is none to read."""
    prompt = options.get("prompt", PROMPT).replace("%p", os.environ.get("USER", "user")).replace(
        "%u", os.environ.get("USER", "user")).replace("%H", "osworld").replace("%h", "osworld").replace("%%", "%")
    if options.get("non_interactive"):
        print("sudo: a password is required", file=sys.stderr)
        return None
    if options.get("stdin"):
        sys.stderr.write(prompt)
        sys.stderr.flush()
        line = _line(0)
        if not line:
            print("\nsudo: no password was provided", file=sys.stderr)
            return None
        return line.decode(errors="replace").rstrip("\n")
    try:
        terminal = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        print("sudo: a terminal is required to read the password; either use the -S option to read from "
              "standard input or configure an askpass helper\nsudo: a password is required", file=sys.stderr)
        return None
    with open(terminal, "r+b", buffering=0) as tty:
        tty.write(prompt.encode())
        saved = termios.tcgetattr(tty)
        quiet = list(saved)
        quiet[3] &= ~termios.ECHO
        termios.tcsetattr(tty, termios.TCSAFLUSH, quiet)
        try:
            line = _line(terminal)
        finally:
            termios.tcsetattr(tty, termios.TCSAFLUSH, saved)
            tty.write(b"\n")
    return line.decode(errors="replace").rstrip("\n")


def _line(fd: int) -> bytes:
    """One line from `fd`, read a byte at a time as sudo reads it: what follows the password
    (``printf 'password\\ny\\n' | sudo -S apt-get install x``) stays for the command."""
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte:
            break
        line += byte
    return line


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
