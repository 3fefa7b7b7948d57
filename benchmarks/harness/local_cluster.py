"""A real Ray cluster on this machine, on loopback only: a head and, optionally, a second node
joined to it with ``ray start --address`` (its own small CPU count and a custom resource
``node2``), so scheduling across two raylets is exercised. The tests' cluster fixture
(tests/fakes/ray_cluster.py) and `gui_gym.benchmarks.perf.distributed --local-cluster` start theirs here.

Ray's GCS and raylets listen on every interface whatever ``--node-ip-address`` says, and
nothing here may listen beyond loopback: the calling process first moves into a private network
namespace (``unshare(CLONE_NEWNET)``, then brings ``lo`` up), where loopback is the only
interface. The namespace is the calling thread's and is inherited by what it starts (the
``ray start`` processes, Ray's threads in the driver, browsers). Without the privilege to make
one, `enter_private_network` says why, and the caller stops (the fixture skips) rather than
listen on the machine's interfaces.

Token authentication is on, with a token of the cluster's own (`gui_gym.remote.ray_auth`):
each node and the driver get it, whatever ``~/.ray/auth_token`` holds (Ray writes one there for
any new local cluster, and with it alone the nodes and the driver disagree on the mode).

Processes are started and stopped by PID (``ray stop`` would stop every cluster on the host).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import shutil
import signal
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from gui_gym.remote.ray_auth import new_token_file, restore, token_env, use_token
from gui_gym.runtime.loopback import free_port

logger = logging.getLogger(__name__)

CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
RAY = str(Path(sys.executable).with_name("ray"))


def enter_private_network() -> str | None:
    """Move this thread (and what it starts from now on) into a private network namespace with
    loopback up. Returns None on success, else why it could not."""
    libc = ctypes.CDLL(None, use_errno=True)
    for flags in (CLONE_NEWNET, CLONE_NEWUSER | CLONE_NEWNET):
        if libc.unshare(flags) == 0:
            break
    else:
        return f"unshare(CLONE_NEWNET) failed: {os.strerror(ctypes.get_errno())}"
    ip = shutil.which("ip")
    if ip is None:
        return "the ip tool is missing (Debian: iproute2), so loopback cannot be brought up"
    subprocess.run([ip, "link", "set", "lo", "up"], check=True)
    return None


@contextlib.contextmanager
def private_network() -> Iterator[str | None]:
    """`enter_private_network` for the block (yields its answer), then this thread's own network
    namespace again: what the thread starts afterwards (a browser in a test run on the same
    worker) sees the host's interfaces, not loopback alone, where Chromium's WebRTC gathering,
    for one, never ends."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        yield enter_private_network()
    finally:
        if ctypes.CDLL(None, use_errno=True).setns(own, CLONE_NEWNET) != 0:  # a private user namespace cannot go back
            logger.warning("could not return to the host's network namespace: %s", os.strerror(ctypes.get_errno()))
        os.close(own)




@dataclass
class Cluster:
    """The head's address, the file holding its token, and the PIDs of the ``ray start`` trees
    this fixture owns."""

    address: str
    temp_dir: Path
    token_path: Path
    head_pids: list[int] = field(default_factory=list)
    node2_pids: list[int] = field(default_factory=list)
    replaced_env: dict[str, str | None] = field(default_factory=dict)
    """The driver's Ray authentication variables before the cluster set its own."""

    def node2_titles(self) -> list[str]:
        """The command lines of the second node's processes: a Ray worker's names its actor and
        the method it runs (``ray::EpisodeWorker.run``)."""
        import psutil

        titles = []
        for pid in _tree(self.node2_pids):
            try:
                titles.append(" ".join(psutil.Process(pid).cmdline()))
            except psutil.Error:
                continue
        return titles

    def kill_node2(self) -> None:
        """kill -9 every process of the second node (its raylet, object store, workers)."""
        for pid in _tree(self.node2_pids):
            _kill(pid)
        self.node2_pids = []

    def stop(self) -> None:
        """Kill every process of both nodes: the ``ray start`` trees, and any process left whose
        command line names this cluster's own temp dir (Ray's daemons outlive their parent)."""
        for pid in _tree(self.node2_pids + self.head_pids) + _naming(str(self.temp_dir)):
            _kill(pid)
        shutil.rmtree(self.temp_dir, ignore_errors=True)
        if self.replaced_env:
            restore(self.replaced_env)
            self.replaced_env = {}


def start_cluster(head_cpus: int = 2, node2_cpus: int | None = 2, timeout_s: float = 600.0) -> Cluster:
    """Start a head bound to 127.0.0.1 and (unless `node2_cpus` is None) a second node joined
    to it, connect this process to the head as the driver (``ray.init``) and wait until every
    node is alive. Each node and the driver use the cluster's token (`Cluster.token_path`);
    `Cluster.stop` gives the driver back its own Ray authentication settings."""
    import ray

    temp_dir = Path(tempfile.mkdtemp(prefix="gui-gym-ray-"))
    port = free_port()
    address = f"127.0.0.1:{port}"
    cluster = Cluster(address, temp_dir, new_token_file(temp_dir))
    deadline = time.monotonic() + timeout_s
    try:
        cluster.head_pids = [_start_node(["--head", f"--port={port}", f"--num-cpus={head_cpus}", f"--temp-dir={temp_dir}",
                                          "--include-dashboard=false"], deadline, f"the head on {address}",
                                         cluster.token_path)]
        cluster.replaced_env = use_token(cluster.token_path)
        ray.init(address=address, logging_level="ERROR")
        if node2_cpus is not None:
            cluster.node2_pids = [_start_node([f"--address={address}", f"--num-cpus={node2_cpus}",
                                               f"--resources={json.dumps({'node2': 1})}"], deadline, "the second node",
                                              cluster.token_path)]
            wait_until(lambda: sum(n["Alive"] for n in ray.nodes()) >= 2, deadline, "the second node")
    except BaseException:
        ray.shutdown()
        cluster.stop()
        raise
    return cluster


def _start_node(args: list[str], deadline: float, what: str, token_path: Path, attempts: int = 3) -> int:
    """``ray start ARGS --block`` with the cluster's token; its PID once it says it started. Ray
    gives a raylet a fixed 30 s to register, which a loaded machine can miss: a failed start is
    tried again."""
    env = {**token_env(token_path), "RAY_USAGE_STATS_ENABLED": "0", "PYTHONUNBUFFERED": "1"}  # readiness line unbuffered
    for attempt in range(1, attempts + 1):
        process = subprocess.Popen([RAY, "start", *args, "--node-ip-address=127.0.0.1", "--disable-usage-stats",
                                    "--block"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            _wait_started(process, deadline, what)
            return process.pid
        except BaseException as exc:  # a test timeout included: never leave a node behind
            for pid in _tree([process.pid]):
                _kill(pid)
            if not isinstance(exc, TimeoutError) or attempt == attempts or time.monotonic() > deadline:
                raise
    raise AssertionError("unreachable")


def wait_until(ready, deadline: float, what: str) -> None:
    """Poll `ready()` until it holds or the monotonic `deadline` passes (Ray offers no event to
    wait on for a node joining)."""
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} was not up in time")
        time.sleep(0.2)


def _wait_started(process: subprocess.Popen, deadline: float, what: str) -> None:
    """Read ``ray start``'s output until it says the runtime started (its own readiness
    line). A thread reads the pipe (and keeps draining it afterwards, so ``ray start`` never
    blocks on a full pipe); this one waits on its lines with the deadline."""
    lines: queue.Queue = queue.Queue()

    def drain() -> None:
        for raw in process.stdout:
            lines.put(raw.decode(errors="replace"))
        lines.put(None)

    threading.Thread(target=drain, daemon=True).start()
    seen: list[str] = []
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            line = None
        if line is None:
            process.poll()
            raise TimeoutError(f"{what} did not start (exit code {process.returncode}): {''.join(seen)[-3000:]}")
        seen.append(line)
        if "Ray runtime started" in line:
            return


def _tree(roots: list[int]) -> list[int]:
    """`roots` and every descendant (children first listed after their parent)."""
    import psutil

    pids = []
    for root in roots:
        try:
            proc = psutil.Process(root)
            pids += [root] + [child.pid for child in proc.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
    return pids


def _naming(text: str) -> list[int]:
    """PIDs of the processes whose command line holds `text` (a path unique to one cluster)."""
    import psutil

    pids = []
    for proc in psutil.process_iter(["pid", "cmdline"]):
        if any(text in part for part in proc.info["cmdline"] or ()):
            pids.append(proc.info["pid"])
    return pids


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
