"""Providers that need an engine or a VM fail fast, naming what is missing."""

from __future__ import annotations

import shutil
import time

import pytest

from gui_gym.backends.desktop import DesktopBackend
from gui_gym.backends.desktop.providers import ProviderConfig, make_provider
from gui_gym.runtime.loopback import free_port
from gui_gym.backends.desktop.sandbox import check_programs
from gui_gym.errors import MissingResourceError




def test_remote_needs_a_host_and_an_answering_server():
    with pytest.raises(MissingResourceError, match=r"provider 'remote' needs the address of a running OSWorld VM"):
        DesktopBackend(provider="remote").start()
    port = free_port()
    started = time.monotonic()
    with pytest.raises(MissingResourceError, match=rf"no OSWorld server answers at http://127.0.0.1:{port}"):
        make_provider("remote", ProviderConfig(host="127.0.0.1", port=port)).start()
    assert time.monotonic() - started < 30


def test_docker_without_its_cli_or_a_vm_image(monkeypatch):
    with pytest.raises(MissingResourceError, match=r"provider 'docker' needs vm_path= pointing at OSWorld's "
                                                   r"Ubuntu.qcow2 \(received None\)"):
        monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/docker")
        DesktopBackend(provider="docker").start()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(MissingResourceError, match=r"provider 'docker' needs the docker CLI on PATH"):
        DesktopBackend(provider="docker").start()


@pytest.mark.skipif(shutil.which("vmrun") is not None, reason="VMware is installed here")
def test_vmware_without_vmrun():
    with pytest.raises(MissingResourceError, match=r"provider 'vmware' needs `vmrun`"):
        DesktopBackend(provider="vmware", vm_path="/vms/Ubuntu.vmx").start()


def test_local_names_missing_programs_and_packages(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None if name in ("bwrap", "Xvfb") else f"/usr/bin/{name}")
    with pytest.raises(MissingResourceError, match=r"needs Xvfb, bwrap, not found on PATH; install them "
                                                   r"\(Debian/Ubuntu: `apt-get install bubblewrap xvfb`\)"):
        check_programs()


def test_local_needs_root_to_map_its_ids(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    with pytest.raises(MissingResourceError, match=r"maps its users to unprivileged host ids of their own, which "
                                                   r"takes root"):
        check_programs()
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "slirp4netns" else f"/usr/bin/{name}")
    with pytest.raises(MissingResourceError, match=r"`apt-get install slirp4netns`"):
        check_programs(network=True)


def test_unknown_provider():
    with pytest.raises(ValueError, match=r"unknown desktop provider 'qemu'"):
        make_provider("qemu", ProviderConfig())
