"""The desktop server's own work on what the agent made stays within bounds, and past one it
answers with a refusal the evaluator scores (`LimitExceededError`), never a timeout (an
infrastructure error), a file "not found", or the sandbox's memory: a folder of 300,000 files,
a folder tree deeper than the listing goes, a file over the caller's bound (the server is told
it and reads nothing past it), a sparse file of 10 GiB, a command that prints without end.

On a real sandbox, the agent's files made as ``user``. ``python -m tests.gui_gym.backends.
desktop.test_desktop_server_bounds`` prints what each took (run against an older gui-gym for
the "before" figures of docs/security.md)."""

from __future__ import annotations

import time

import pytest

from gui_gym.backends.desktop import DesktopBackend, DesktopConfig
from gui_gym.backends.desktop.inside.user_files import MAX_DEPTH
from gui_gym.errors import LimitExceededError

pytestmark = pytest.mark.slow

HOME = "/home/user"
ATTACKS = {
    "a folder of 300,000 files, listed": (
        f"mkdir -p {HOME}/many && cd {HOME}/many && python -c \"[open(str(i), 'w').close() for i in range(300000)]\"",
        lambda client: client.list_directory(f"{HOME}/many", max_bytes=1 << 20)),
    f"a tree {MAX_DEPTH + 10} folders deep, listed": (
        f"mkdir -p {HOME}/deep/" + "/".join(["d"] * (MAX_DEPTH + 10)),
        lambda client: client.list_directory(f"{HOME}/deep", max_bytes=1 << 20)),
    "a file of 20 MiB, read with a bound of 10 MiB": (
        f"head -c 20971520 /dev/zero > {HOME}/big.bin",
        lambda client: client.get_file(f"{HOME}/big.bin", max_bytes=10 << 20)),
    "a sparse file of 10 GiB, read with no bound of the caller's": (
        f"truncate -s 10G {HOME}/sparse.bin",
        lambda client: client.get_file(f"{HOME}/sparse.bin")),
    "a command that prints without end": (
        "true", lambda client: client.execute(["yes"], timeout_s=60)),
}
"""What the agent leaves (a shell line), and the server's work on it."""


@pytest.fixture(scope="module")
def desktop():
    backend = DesktopBackend(DesktopConfig(provider="local", screen_size=(800, 600), shell="openbox",
                                           accessibility=False, pool_size=0))
    backend.start()
    yield backend
    backend.close()


@pytest.mark.parametrize("attack", ATTACKS)
def test_work_on_the_agents_content_past_a_bound_is_refused_as_the_agents_doing(desktop, attack):
    """Before: the listing outran the client's 30 s (an infrastructure error), the deep tree was
    cut silently, the big file was read whole inside before the client refused it, the sparse file
    came back as "not found", and ``yes`` filled the server's memory until the command's timeout.
    Now each is a refusal naming the bound, and the server goes on answering."""
    prepare, work = ATTACKS[attack]
    client = desktop.client
    assert client.execute(["sh", "-c", prepare], timeout_s=300)["returncode"] == 0
    with pytest.raises(LimitExceededError, match="the desktop refused"):
        work(client)
    assert client.screen_size() == (800, 600)


def test_within_the_bounds_the_same_work_answers_as_before(desktop):
    client = desktop.client
    client.execute(["sh", "-c", f"mkdir -p {HOME}/few/sub && touch {HOME}/few/a {HOME}/few/sub/b && "
                                f"head -c 1000 /dev/zero > {HOME}/few/k.bin"])
    assert client.list_directory(f"{HOME}/few", max_bytes=1 << 20)["directory_tree"] == {"name": "few", "type": "directory", "children": [
        {"name": "a", "type": "file"}, {"name": "k.bin", "type": "file"},
        {"name": "sub", "type": "directory", "children": [{"name": "b", "type": "file"}]}]}
    assert client.get_file(f"{HOME}/few/k.bin", max_bytes=1000) == bytes(1000)
    assert client.get_file(f"{HOME}/few/missing") is None
    assert client.execute(["sh", "-c", "seq 100000 | wc -l"])["output"] == "100000\n"


def main() -> None:
    backend = DesktopBackend(DesktopConfig(provider="local", screen_size=(800, 600), shell="openbox",
                                           accessibility=False, pool_size=0))
    backend.start()
    try:
        for name, (prepare, work) in ATTACKS.items():
            backend.client.execute(["sh", "-c", prepare], timeout_s=300)
            started = time.monotonic()
            try:
                outcome = repr(work(backend.client))[:80]
            except Exception as exc:  # the figures of whatever happens
                outcome = f"{type(exc).__name__}: {str(exc)[:160]}"
            print(f"{name}: {time.monotonic() - started:.1f} s, {outcome}", flush=True)
    finally:
        backend.close()


if __name__ == "__main__":
    main()
