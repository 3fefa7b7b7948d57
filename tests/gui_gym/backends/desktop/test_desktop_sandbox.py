"""The local provider's sandbox, for real: bubblewrap + Xvfb + openbox + our server.

One sandbox for the module (starting one takes about a second on an idle machine). The attacks
run as the agent's processes do: commands through ``/execute`` run as ``user``, the uid of every
app and terminal the agent types into."""

from __future__ import annotations

import glob
import json
import os
import secrets
import shlex
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
from pathlib import Path

import psutil
import pytest

from gui_gym.actions import Action
from gui_gym.backends.desktop.accounts import HOST_ID_BASE, SUDO_ID, host_ids
from gui_gym.backends.desktop.client import Endpoint, ServerClient, ServerError
from gui_gym.backends.desktop.sandbox import PACKAGE_DIR, PACKAGE_ROOT, Sandbox, SandboxSpec, runtime_paths
from gui_gym.runtime.waiting import wait_until


OSWORLD_GOLD = Path(PACKAGE_DIR) / "suites" / "osworld" / "sample" / "files" / "letter_gold.txt"
"""A gold file of the bundled OSWorld sample: the expected result an agent must not read."""


@pytest.fixture(scope="module")
def sandbox():
    box = Sandbox(SandboxSpec(width=800, height=600, accessibility=False, shell="openbox"))
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


def as_agent(client: ServerClient, code: str, *args: str, root: bool = False) -> dict:
    """Run Python `code` inside, as the agent's uid, or with `root` as the root ``sudo`` gives
    it (its output: stdout parsed as JSON)."""
    command = ["python", "-c", textwrap.dedent(code), *args]
    if root:
        reply = client.execute(f"echo password | sudo -S {shlex.join(command)}", shell=True, timeout_s=60)
    else:
        reply = client.execute(command, timeout_s=60)
    assert reply["returncode"] == 0, reply
    return json.loads(reply["output"])


AGENTS = [pytest.param(False, id="user"), pytest.param(True, id="sudo-root")]
"""Who the agent runs as: ``user``, or the root it gets with sudo (the password is OSWorld's)."""


def test_the_agent_is_an_unprivileged_stranger_to_the_host(sandbox, client):
    seen = as_agent(client, """
        import json, os, sys
        try:
            open("/etc/shadow").read(); shadow = "read"
        except OSError as exc:
            shadow = type(exc).__name__
        project, package = sys.argv[2], sys.argv[3]
        print(json.dumps({"uid": os.getuid(), "map": open("/proc/self/uid_map").read().split(),
                          "shadow": shadow, "root": sorted(os.listdir("/")), "beside": os.listdir(sys.argv[1]),
                          "project": os.listdir(project), "package": os.listdir(package),
                          "gold": os.path.exists(sys.argv[4])}))
    """, os.path.dirname(PACKAGE_ROOT), PACKAGE_ROOT, PACKAGE_DIR, str(OSWORLD_GOLD))
    mapped = dict(zip(seen["map"][0::3], seen["map"][1::3]))
    assert seen["uid"] == 1000 and "0" not in mapped.values()  # was "1000 0 1": the agent was host root
    assert {int(host) for host in mapped.values()} == set(host_ids(sandbox.pid).values())
    assert min(host_ids(sandbox.pid).values()) >= HOST_ID_BASE
    assert seen["shadow"] == "PermissionError"  # was readable
    assert not {"srv", "mnt", "media", "boot"} & set(seen["root"])
    # of the folder holding the project, only the project: not what lies beside it (data, other checkouts)
    assert seen["beside"] == [os.path.basename(PACKAGE_ROOT)]
    # of the project, only the venv and the package's code; not the suites' task and gold files
    assert set(seen["project"]) <= {".venv", "gui_gym"} and "suites" not in seen["package"] and not seen["gold"]
    assert {"backends", "actions.py"} <= set(seen["package"]) and OSWORLD_GOLD.is_file()  # was all of the project
    agents = [p for p in psutil.Process(sandbox.pid).children(recursive=True) if p.name() == "openbox"]
    assert agents and agents[0].uids().real == host_ids(sandbox.pid)[1000]


def test_the_root_sudo_gives_is_root_over_the_users_files_and_a_stranger_to_the_rest(sandbox, client):
    """``sudo`` runs as uid 0 of a namespace of its own, which maps 0 to the sandbox's sudo id
    and 1000 to ``user``, nothing else: root in the user's home, no more than anyone elsewhere."""
    client.execute(["sh", "-c", "echo secret > ~/private.txt && chmod 600 ~/private.txt"])
    seen = as_agent(client, """
        import json, os, sys
        try:
            open("/etc/shadow").read(); shadow = "read"
        except OSError as exc:
            shadow = type(exc).__name__
        os.chown("/home/user/private.txt", 0, 0)
        os.makedirs("/home/user/Desktop/made-by-root", exist_ok=True)  # a rerun finds it made
        print(json.dumps({"uid": os.getuid(), "map": open("/proc/self/uid_map").read().split(), "shadow": shadow,
                          "private": open("/home/user/private.txt").read(), "root": sorted(os.listdir("/")),
                          "package": os.listdir(sys.argv[1]), "gold": os.path.exists(sys.argv[2])}))
    """, PACKAGE_DIR, str(OSWORLD_GOLD), root=True)
    assert seen["uid"] == 0 and seen["map"] == ["0", "997", "1", "1000", "1000", "1"]
    assert seen["private"] == "secret\n" and seen["shadow"] == "PermissionError"
    assert not {"srv", "mnt", "media", "boot"} & set(seen["root"]) and "suites" not in seen["package"]
    assert not seen["gold"]
    owners = client.execute("stat -c '%U %u' ~/private.txt ~/Desktop/made-by-root", shell=True)["output"]
    assert owners == "root 997\nroot 997\n"  # listed as root's, as on the VM; not the server's uid 0
    client.launch(["sh", "-c", "echo password | sudo -S sleep 60"])
    # sudo asks the server's service, which checks the password and enters its namespace: seconds on a loaded machine
    assert wait_until(lambda: [p for p in psutil.Process(sandbox.pid).children(recursive=True) if p.name() == "sleep"], 60)
    sleeper = next(p for p in psutil.Process(sandbox.pid).children(recursive=True) if p.name() == "sleep")
    assert sleeper.uids().real == host_ids(sandbox.pid)[SUDO_ID] >= HOST_ID_BASE


@pytest.mark.parametrize("root", AGENTS)
def test_nothing_of_the_host_is_writable_from_inside(sandbox, client, root):
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "gui-gym-desktop-*")))
    seen = as_agent(client, """
        import json, os
        out = {}
        for path in ("/run/gui-gym/fill", "/run/fill", "/etc/fill", "/usr/fill", "/fill"):
            try:
                with open(path, "wb") as f:
                    f.write(bytes(64 << 20))
                out[path] = "written"
            except OSError as exc:
                out[path] = type(exc).__name__
        print(json.dumps(out))
    """, root=root)
    assert seen == {"/run/gui-gym/fill": "PermissionError", "/run/fill": "PermissionError",
                    "/etc/fill": "OSError", "/usr/fill": "OSError", "/fill": "PermissionError"}  # OSError: read-only
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "gui-gym-desktop-*"))) == before  # no host folder
    assert not os.path.exists("/run/gui-gym")


@pytest.fixture
def host_listeners():
    """A world-writable Unix socket in a host folder, an abstract one and a loopback TCP port on
    the host, each answering "HOST"."""
    folder = tempfile.mkdtemp(dir="/var/tmp", prefix="gui-gym-probe-")
    os.chmod(folder, 0o777)
    servers = [socket.socket(socket.AF_UNIX), socket.socket(socket.AF_UNIX), socket.socket()]
    path, abstract = os.path.join(folder, "host.sock"), f"gui-gym-probe-{secrets.token_hex(6)}"
    servers[0].bind(path)
    os.chmod(path, 0o777)
    servers[1].bind("\0" + abstract)
    servers[2].bind(("127.0.0.1", 0))

    def answer(server):
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.sendall(b"HOST")
            conn.close()
    for server in servers:
        server.listen()
        threading.Thread(target=answer, args=(server,), daemon=True).start()
    yield {"path": path, "abstract": abstract, "port": servers[2].getsockname()[1]}
    for server in servers:
        server.close()
    os.unlink(path)
    os.rmdir(folder)


REACH = """
    import json, socket, sys
    path, abstract, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    out = {}
    for name, family, address in (("path", socket.AF_UNIX, path), ("abstract", socket.AF_UNIX, "\\0" + abstract),
                                  ("loopback", socket.AF_INET, ("127.0.0.1", port)),
                                  ("host via slirp", socket.AF_INET, ("10.0.2.2", port))):
        s = socket.socket(family)
        s.settimeout(3)
        try:
            s.connect(address)
            out[name] = s.recv(4).decode()
        except OSError as exc:
            out[name] = type(exc).__name__
        s.close()
    print(json.dumps(out))
"""


def test_host_sockets_are_out_of_reach(client, host_listeners):
    for family, address in ((socket.AF_UNIX, host_listeners["path"]), (socket.AF_UNIX, "\0" + host_listeners["abstract"]),
                            (socket.AF_INET, ("127.0.0.1", host_listeners["port"]))):
        with socket.socket(family) as probe:  # on the host, each answers
            probe.connect(address)
            assert probe.recv(4) == b"HOST"
    seen = as_agent(client, REACH, host_listeners["path"], host_listeners["abstract"], str(host_listeners["port"]))
    assert "HOST" not in seen.values(), seen
    assert seen["path"] == "FileNotFoundError"  # the host's /var/tmp is not there


@pytest.mark.slow
def test_a_sandbox_with_the_network_still_reaches_no_host_socket(host_listeners):
    box = Sandbox(SandboxSpec(width=640, height=480, accessibility=False, network=True, shell="openbox"))
    box.start()
    try:
        client = ServerClient(Endpoint(socket_path=box.socket_path, token=box.token))
        interfaces = client.execute(["cat", "/proc/net/dev"])["output"].splitlines()[2:]
        assert sorted(line.split(":")[0].strip() for line in interfaces) == ["lo", "tap0"]
        assert client.execute(["cat", "/etc/resolv.conf"])["output"] == "nameserver 10.0.2.3\n"
        seen = as_agent(client, REACH, host_listeners["path"], host_listeners["abstract"], str(host_listeners["port"]))
        assert "HOST" not in seen.values(), seen  # before: the host's network namespace, abstract sockets and all
    finally:
        box.stop()


@pytest.mark.parametrize("root", AGENTS)
def test_the_evaluators_channel_is_out_of_the_agents_reach(sandbox, client, root):
    """Also as the root sudo gives: it is not the server's uid, and has no capability over
    anything of the server's or the display's."""
    server_pid = json.loads(client.execute("ps -o pid= -C python -u root | head -1", shell=True)["output"] or "0")
    display_pid = int(client.execute("ps -o pid= -C Xvfb", shell=True)["output"])
    seen = as_agent(client, """
        import ctypes, json, os, signal, socket, stat, sys
        server, display, runtime = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
        out, dump = {}, []

        def _trace(pid):
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
                raise OSError(ctypes.get_errno(), "ptrace")

        def attempt(name, call):
            try:
                call()
                out[name] = "done"
            except OSError as exc:
                out[name] = type(exc).__name__
        attempt("list the server's folder", lambda: os.listdir("/run/gui-gym"))
        attempt("remove the socket", lambda: os.unlink("/run/gui-gym/server.sock"))
        attempt("move the folder", lambda: os.rename("/run/gui-gym", "/run/old"))
        fake = socket.socket(socket.AF_UNIX)
        attempt("bind a socket in its place", lambda: fake.bind("/run/gui-gym/server.sock"))
        attempt("connect to the server", lambda: socket.socket(socket.AF_UNIX).connect("/run/gui-gym/server.sock"))
        attempt("replace sudo's socket", lambda: os.unlink("/run/gui-gym-sudo/socket"))
        attempt("trace the server", lambda: _trace(server))
        for part in ("environ", "mem", "fd/0", "root/run/gui-gym"):
            attempt(f"read the server's {part}", lambda: open(f"/proc/{server}/{part}", "rb").read(1))
        attempt("stop the server", lambda: os.kill(server, signal.SIGTERM))
        attempt("stop the display", lambda: os.kill(display, signal.SIGKILL))
        attempt("replace the display's socket", lambda: os.unlink("/tmp/.X11-unix/X0"))
        readable = [f"/proc/{pid}/{part}" for pid in os.listdir("/proc") if pid.isdigit()
                    for part in ("cmdline", "environ")]
        for folder in ("/run", "/tmp", "/home", "/dev/shm", "/var/tmp"):  # all else the agent may read
            for root, folders, files in os.walk(folder):
                # the code the server runs from, shown read-only (inside /tmp where the project is)
                folders[:] = [f for f in folders if os.path.join(root, f) not in runtime]
                readable += [os.path.join(root, name) for name in files]
        for path in readable:
            try:
                if stat.S_ISREG(os.stat(path).st_mode):
                    with open(path, "rb") as f:
                        dump.append(f.read(1 << 16).decode(errors="replace"))
            except OSError:
                pass
        print(json.dumps({"out": out, "dump": "".join(dump)}))
    """, str(server_pid), str(display_pid), json.dumps([*runtime_paths(), PACKAGE_DIR]), root=root)
    assert server_pid and set(seen["out"].values()) == {"PermissionError"}, seen["out"]
    assert "--token-fd" in seen["dump"] and sandbox.token not in seen["dump"]  # before: /run/gui-gym/token
    assert client.screen_size() == (800, 600)  # the host still talks to its own server
    assert client.execute(["echo", "real"])["output"] == "real\n"


def test_a_forged_server_cannot_answer_the_host(sandbox, client):
    client.launch(["python", "-c", textwrap.dedent("""
        import os, socket
        for path in ("/run/gui-gym/server.sock", "/tmp/server.sock"):
            try:
                os.unlink(path)
            except OSError:
                pass
            try:
                s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(); break
            except OSError:
                continue
        while True:
            c, _ = s.accept()
            c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 35\\r\\n\\r\\nFORGED BY A PROCESS IN THE SANDBOX\\n")
            c.close()
    """)])
    assert wait_until(lambda: client.execute(["ls", "/tmp"])["output"].count("server.sock"), 20)  # it is listening
    for _ in range(5):
        assert client.call("GET", "/platform") == b"Linux"


def test_stopping_ends_every_process(sandbox, client):
    client.launch(["xterm"])
    started = psutil.Process(sandbox.pid).children(recursive=True)
    names = {p.name() for p in started}
    assert {"Xvfb", "openbox", "xterm"} <= names
    sandbox.stop()
    assert not [p for p in started if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    sandbox.stop()



def test_a_package_inside_a_shown_prefix_still_hides_its_suites(monkeypatch):
    """An install into a venv's site-packages: the prefix shown whole holds the package, data too."""
    monkeypatch.setattr(sys, "prefix", PACKAGE_ROOT)
    box = Sandbox(SandboxSpec(width=800, height=600, accessibility=False, shell="openbox"))
    box.start()
    try:
        seen = as_agent(ServerClient(Endpoint(socket_path=box.socket_path, token=box.token)), """
            import json, os, sys
            print(json.dumps([os.path.exists(path) for path in sys.argv[1:]]))
        """, os.path.join(PACKAGE_ROOT, "README.md"), os.path.join(PACKAGE_DIR, "actions.py"), str(OSWORLD_GOLD))
    finally:
        box.stop()
    assert seen == [True, True, False]  # the prefix is shown, the package's code too, its gold files not


def test_an_interpreter_in_a_private_folder_is_bound_back_read_only(monkeypatch):
    fds = {"passwd": 5, "group": 6, "token": 7, "ready": 8}
    monkeypatch.setattr(sys, "prefix", "/tmp/checkout/.venv")
    command = Sandbox(SandboxSpec()).command(fds)
    venv = str(Path("/tmp/checkout/.venv").resolve())
    binds = [i for i in range(len(command) - 2) if command[i:i + 3] == ["--ro-bind", venv, venv]]
    assert len(binds) == 1
    tmp = next(i for i in range(len(command) - 1) if command[i:i + 2] == ["--tmpfs", "/tmp"])
    assert binds[0] > tmp  # else /tmp's tmpfs hides it
    package = next(i for i in range(len(command) - 1) if command[i:i + 2] == ["--tmpfs", PACKAGE_DIR])
    assert package > binds[0]  # a package installed in the venv: its data hidden all the same
    monkeypatch.setattr(sys, "prefix", "/usr")
    assert not any(arg.startswith("/tmp/checkout") for arg in Sandbox(SandboxSpec()).command(fds))


VENV_LINK_RUN = """
import json, sys
from gui_gym.backends.desktop.client import Endpoint, ServerClient
from gui_gym.backends.desktop.sandbox import Sandbox, SandboxSpec
box = Sandbox(SandboxSpec(width=640, height=480, accessibility=False, shell="openbox"))
box.start()
try:
    reply = ServerClient(Endpoint(socket_path=box.socket_path, token=box.token)).execute(
        ["python", "-c", "import sys; print(sys.prefix)"], timeout_s=60)
finally:
    box.stop()
print(json.dumps({"executable": sys.executable, "inside": reply["output"].strip()}))
"""


def test_a_venv_reached_through_a_link_runs_the_sandbox(tmp_path):
    """``.venv -> elsewhere``: the sandbox binds the resolved venv, so it must also exec the
    interpreter there (it ran the linked path, which does not exist inside: every start failed)."""
    link = tmp_path / ".venv"
    link.symlink_to(Path(sys.prefix).resolve())
    python = link / "bin" / Path(sys.executable).name
    done = subprocess.run([str(python), "-c", VENV_LINK_RUN], capture_output=True, text=True, timeout=180,
                          env={**os.environ, "PYTHONPATH": PACKAGE_ROOT})
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["executable"] == str(python)  # the host ran the venv through its link
    assert seen["inside"] == str(Path(sys.prefix).resolve())  # inside, the same venv at its real place
