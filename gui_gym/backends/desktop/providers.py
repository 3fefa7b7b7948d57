"""Where the desktop comes from. Every provider hands the backend a `ServerClient` speaking
OSWorld's server protocol; they differ in what runs behind it and how an episode is reset.

- ``local``: our own server in a bubblewrap sandbox on this machine (`sandbox.py`); a fresh
  sandbox per episode is OSWorld's snapshot revert, in under a second, and with the warm pool
  (`pool.py`, ``pool_size``) the next one has already booted when the reset comes.
- ``docker``: OSWorld's VM image in OSWorld's QEMU container, through the docker CLI; an
  episode is a fresh container.
- ``vmware``: an OSWorld ``.vmx`` through ``vmrun``; an episode reverts to a snapshot.
- ``remote``: an OSWorld VM already running at host:port; nothing is reverted.

Each fails at start, fast, with one message naming what is missing and how to provide it.
"""

from __future__ import annotations

import shutil
import subprocess
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path

from gui_gym.backends.desktop.client import Endpoint, ServerClient, ServerError
from gui_gym.backends.desktop.limits import SandboxLimits
from gui_gym.backends.desktop.pool import SandboxPool
from gui_gym.backends.desktop.sandbox import Sandbox, SandboxSpec
from gui_gym.backends.desktop.shell import DEFAULT_SHELL
from gui_gym.errors import InfraError, MissingResourceError

PROVIDERS = ("local", "docker", "vmware", "remote")
OSWORLD_DOCKER_IMAGE = "happysixd/osworld-docker"
SERVER_PORT = 5000
REMOTE_TIMEOUT_S = 5.0
"""A running VM answers at once; a silent one is reported, not waited for."""


@dataclass
class ProviderConfig:
    """Settings of the providers; each reads the fields it needs."""

    screen_size: tuple[int, int] = (1920, 1080)
    accessibility: bool = True
    shell: str = DEFAULT_SHELL
    network: bool = False
    host: str | None = None
    port: int = SERVER_PORT
    vm_path: str | None = None
    snapshot: str = "init_state"
    docker_image: str = OSWORLD_DOCKER_IMAGE
    boot_timeout_s: float = 300.0
    sandbox_limits: SandboxLimits = field(default_factory=SandboxLimits)
    pool_size: int = 1


class Provider(ABC):
    name: str

    def __init__(self, config: ProviderConfig):
        self.config = config
        self.client: ServerClient | None = None

    @abstractmethod
    def start(self) -> ServerClient:
        """Bring the desktop up; fail fast with MissingResourceError when it cannot exist."""

    @abstractmethod
    def new_episode(self, network: bool) -> ServerClient:
        """A desktop in its initial state for a new episode (`network`: the task needs it)."""

    @abstractmethod
    def alive(self) -> bool: ...

    @abstractmethod
    def stop(self) -> None:
        """Release everything started; safe twice."""

    @property
    def network(self) -> bool:
        """Whether the current desktop can reach the network."""
        return True

    def episode_ready(self) -> None:
        """The current episode is set up (its first observation is being taken): a provider
        may now prepare the next episode's desktop."""


class LocalProvider(Provider):
    """Our own server in a sandbox; each episode a sandbox of its own, never one an earlier
    episode used. With ``pool_size`` > 0 the next sandboxes boot in the background (`SandboxPool`)
    and used ones are stopped there too."""

    name = "local"

    def __init__(self, config: ProviderConfig):
        super().__init__(config)
        self.sandbox: Sandbox | None = None
        self.pool: SandboxPool | None = None
        self.fresh = False
        """The current sandbox has not served an episode yet (it was started by `start`)."""

    @property
    def network(self) -> bool:
        return self.sandbox is not None and self.sandbox.spec.network

    def start(self) -> ServerClient:
        self._switch(self.config.network)
        self.fresh = True
        return self.client

    def new_episode(self, network: bool) -> ServerClient:
        wanted = network or self.config.network
        if self.fresh and self.sandbox is not None and self.sandbox.spec.network == wanted and self.alive():
            self.fresh = False
            return self.client
        self.fresh = False
        return self._switch(wanted)

    def alive(self) -> bool:
        return self.sandbox is not None and self.sandbox.alive()

    def episode_ready(self) -> None:
        if self.pool is not None:
            self.pool.fill()

    def stop(self) -> None:
        try:
            if self.sandbox is not None:
                self.sandbox.stop()
        finally:
            self.sandbox, self.client = None, None
            pool, self.pool = self.pool, None
            if pool is not None:
                pool.close()

    def _spec(self, network: bool) -> SandboxSpec:
        width, height = self.config.screen_size
        return SandboxSpec(width=width, height=height, network=network, accessibility=self.config.accessibility,
                           shell=self.config.shell, limits=self.config.sandbox_limits)

    def _switch(self, network: bool) -> ServerClient:
        """Retire the current sandbox and take a fresh one (from the pool when it has one)."""
        if self.pool is None:
            self.pool = SandboxPool(self._spec(self.config.network), self.config.pool_size)
        old, self.sandbox, self.client = self.sandbox, None, None
        if old is not None:
            self.pool.retire(old)
        self.sandbox = self.pool.take(self._spec(network))
        self.client = ServerClient(Endpoint(socket_path=self.sandbox.socket_path, token=self.sandbox.token))
        return self.client


class RemoteProvider(Provider):
    name = "remote"

    def start(self) -> ServerClient:
        if not self.config.host:
            raise MissingResourceError(
                "provider 'remote' needs the address of a running OSWorld VM: pass host='<ip>' "
                f"(and port=, default {SERVER_PORT}) to gym.make")
        self.client = _reach(self.config.host, self.config.port, timeout_s=REMOTE_TIMEOUT_S, what="provider 'remote'")
        return self.client

    def new_episode(self, network: bool) -> ServerClient:
        if self.client is None:
            return self.start()
        return self.client

    def alive(self) -> bool:
        if self.client is None:
            return False
        try:
            self.client.call("GET", "/platform", timeout_s=5)
        except (InfraError, ServerError):
            return False
        return True

    def stop(self) -> None:
        self.client = None


class DockerProvider(RemoteProvider):
    """OSWorld's QEMU image run by the docker CLI; a fresh container per episode."""

    name = "docker"

    def __init__(self, config: ProviderConfig):
        super().__init__(config)
        self.container: str | None = None

    def start(self) -> ServerClient:
        docker = shutil.which("docker")
        if docker is None:
            raise MissingResourceError(
                "provider 'docker' needs the docker CLI on PATH (https://docs.docker.com/engine/install/); "
                "or use provider 'local', or 'remote' with host= of a running OSWorld VM")
        vm = self.config.vm_path
        if not vm or not Path(vm).is_file():
            raise MissingResourceError(
                f"provider 'docker' needs vm_path= pointing at OSWorld's Ubuntu.qcow2 (received {vm!r}); "
                "download it as OSWorld's README explains")
        if not Path("/dev/kvm").exists():
            raise MissingResourceError("provider 'docker' needs /dev/kvm (hardware virtualisation) on this host")
        return self._run(docker, vm)

    def new_episode(self, network: bool) -> ServerClient:
        self.stop()
        return self.start()

    def stop(self) -> None:
        if self.container is not None:
            subprocess.run(["docker", "rm", "-f", self.container], capture_output=True, timeout=60, check=False)
            self.container = None
        self.client = None

    def _run(self, docker: str, vm: str) -> ServerClient:
        run = subprocess.run(
            [docker, "run", "-d", "--rm", "--cap-add", "NET_ADMIN", "--device", "/dev/kvm",
             "-e", "DISK_SIZE=32G", "-e", "RAM_SIZE=4G", "-e", "CPU_CORES=4",
             "-v", f"{Path(vm).resolve()}:/System.qcow2:ro", "-p", f"127.0.0.1::{SERVER_PORT}",
             self.config.docker_image], capture_output=True, text=True, timeout=600)
        if run.returncode != 0:
            raise InfraError(f"docker run {self.config.docker_image} failed: {run.stderr.strip()[-500:]}")
        self.container = run.stdout.strip()
        port = subprocess.run([docker, "port", self.container, str(SERVER_PORT)], capture_output=True,
                              text=True, timeout=30).stdout.strip().rsplit(":", 1)[-1]
        self.client = _reach("127.0.0.1", int(port), self.config.boot_timeout_s, "provider 'docker'")
        return self.client


class VMwareProvider(RemoteProvider):
    """An OSWorld ``.vmx`` driven by ``vmrun``; episodes revert to a snapshot."""

    name = "vmware"

    def start(self) -> ServerClient:
        if shutil.which("vmrun") is None:
            raise MissingResourceError(
                "provider 'vmware' needs `vmrun` (VMware Workstation/Fusion) on PATH; or use provider "
                "'local', or 'remote' with host= of a running OSWorld VM")
        vmx = self.config.vm_path
        if not vmx or not Path(vmx).is_file():
            raise MissingResourceError(f"provider 'vmware' needs vm_path= pointing at OSWorld's .vmx file "
                                       f"(received {vmx!r})")
        self._vmrun("start", vmx, "nogui")
        ip = self._vmrun("getGuestIPAddress", vmx, "-wait").strip()
        self.client = _reach(ip, self.config.port, self.config.boot_timeout_s, "provider 'vmware'")
        return self.client

    def new_episode(self, network: bool) -> ServerClient:
        if self.config.vm_path:
            self._vmrun("revertToSnapshot", self.config.vm_path, self.config.snapshot)
        return self.start()

    def stop(self) -> None:
        if self.client is not None and self.config.vm_path:
            self._vmrun("stop", self.config.vm_path, "hard", check=False)
        self.client = None

    def _vmrun(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["vmrun", "-T", "ws", *args], capture_output=True, text=True, timeout=600)
        if check and done.returncode != 0:
            raise InfraError(f"vmrun {args[0]} failed: {(done.stdout + done.stderr).strip()[-500:]}")
        return done.stdout


def _reach(host: str, port: int, timeout_s: float, what: str) -> ServerClient:
    client = ServerClient(Endpoint(host=host, port=port))
    try:
        client.wait_ready(timeout_s)
    except InfraError as exc:
        raise MissingResourceError(f"{what}: no OSWorld server answers at http://{host}:{port} within "
                                   f"{timeout_s:.0f} s ({exc}); is the VM running and its server on port {port}?") from exc
    return client


def make_provider(name: str, config: ProviderConfig) -> Provider:
    classes = {"local": LocalProvider, "docker": DockerProvider, "vmware": VMwareProvider, "remote": RemoteProvider}
    if name not in classes:
        raise ValueError(f"unknown desktop provider {name!r}; expected one of {list(PROVIDERS)}")
    return classes[name](config)
