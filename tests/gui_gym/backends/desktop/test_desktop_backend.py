"""`DesktopBackend` on the local provider, for real (one desktop for the module)."""

from __future__ import annotations

import numpy as np
import pytest

from gui_gym.actions import Action
from gui_gym.backends.desktop import DesktopBackend, DesktopConfig, SandboxLimits
from gui_gym.errors import ActionExecutionError
from gui_gym.runtime.waiting import wait_until


@pytest.fixture(scope="module")
def backend():
    desktop = DesktopBackend(screen_size=(800, 600), shell="openbox")
    desktop.start()
    desktop.new_episode()
    yield desktop
    desktop.close()


def test_screenshots_are_rgb_frames_with_the_pointer_drawn(backend):
    backend.execute(Action.move(100, 100))
    first = backend.observe().screenshot
    backend.execute(Action.move(400, 300))
    second = backend.observe().screenshot
    assert first.shape == (600, 800, 3) and first.dtype == np.uint8
    changed = np.argwhere((first != second).any(axis=2))
    assert len(changed) and changed.min(axis=0)[0] >= 95  # only the pointer moved


def test_actions_settle_by_screen_stability(backend):
    backend.client.launch(["mousepad"])
    assert backend.wait_for_screen(30, expect_change=True)
    backend.execute(Action.type("hello"))
    assert backend.last_settle["stable"] is True and backend.last_settle_s > 0
    backend.execute(Action.hotkey("ctrl", "a"))
    assert backend.last_settle["frames"] >= backend.config.settle_stable_frames


def test_accessibility_tree_lists_the_app(backend):
    tree = backend.observe(a11y=True).a11y_tree
    assert tree.startswith("tag\tname\ttext") and "Mousepad" in tree


def test_unsupported_actions_are_action_errors(backend):
    with pytest.raises(ActionExecutionError, match=r"a desktop cannot carry out a 'goto' action"):
        backend.execute(Action.goto("https://example.org"))
    with pytest.raises(ActionExecutionError, match="the desktop has no element indices"):
        backend.execute(Action.click_element(3))


def test_a_new_episode_is_a_fresh_desktop(backend):
    backend.client.execute("echo x > ~/marker", shell=True)
    backend.new_episode()
    assert backend.client.get_file("/home/user/marker") is None
    assert "mousepad" not in backend.client.execute("wmctrl -l -x", shell=True)["output"].lower()


def test_config_validates_and_pops_its_fields():
    kwargs = {"provider": "remote", "host": "10.0.0.2", "max_steps": 5, "sandbox_limits": SandboxLimits(tmp_mib=64)}
    config = DesktopConfig.pop_from(kwargs)
    assert config.host == "10.0.0.2" and kwargs == {"max_steps": 5}
    assert config.provider_config().sandbox_limits.tmp_mib == 64
    with pytest.raises(ValueError, match=r"provider must be one of \['local', 'docker', 'vmware', 'remote'\], "
                                         r"received 'kvm'"):
        DesktopConfig(provider="kvm")


def test_wait_for_screen_without_change_returns_when_still(backend):
    backend.mark_screen()
    assert wait_until(lambda: backend.wait_for_screen(5, expect_change=False), 10)


def test_require_network_gives_the_episode_a_network(backend):
    backend.new_episode()
    assert not backend.has_network
    backend.require_network()
    assert backend.has_network
    interfaces = backend.client.execute(["cat", "/proc/net/dev"])["output"].splitlines()[2:]
    assert len(interfaces) > 1
    backend.new_episode()
    assert not backend.has_network


def test_the_terminal_output_is_the_focused_terminal_of_gnome_terminal_s_active_window(backend):
    """As OSWorld's server reads it (``vm_terminal_output``): not the first terminal on the
    desktop, the one the user is in; none while another app is active."""
    client = backend.client

    def terminals() -> list[str]:
        listing = client.execute("wmctrl -l -x", shell=True)["output"].splitlines()
        return [line.split()[0] for line in listing if "gnome-terminal" in line.lower()]

    assert client.terminal_output() is None
    for count, word in ((1, "first"), (2, "second")):
        client.launch(["gnome-terminal"])
        assert wait_until(lambda: len(terminals()) == count, 60)
        assert wait_until(lambda: (client.terminal_output() or "").endswith("$"), 60)  # the new one, its prompt
        backend.execute(Action.type(f"echo {word}-terminal\n"))
        assert wait_until(lambda: f"\n{word}-terminal\n" in (client.terminal_output() or ""), 30)
    assert "first-terminal" not in client.terminal_output()  # before: the first terminal of the tree
    client.execute(["wmctrl", "-i", "-a", terminals()[0]])
    assert wait_until(lambda: "\nfirst-terminal\n" in (client.terminal_output() or ""), 30)
    client.launch(["mousepad"])
    assert wait_until(lambda: client.terminal_output() is None, 60)


def test_a_wait_without_a_duration_pauses_osworld_s_2_s_or_what_the_env_was_given(monkeypatch):
    """OSWorld's ``DesktopEnv.step`` sleeps its ``pause`` for ``WAIT`` (2 s; its runners set it
    with ``--sleep_after_execution``); a wait with its own duration lasts that long."""
    from gui_gym.backends.desktop import backend as backend_module

    slept: list[float] = []
    monkeypatch.setattr(backend_module.time, "sleep", slept.append)
    for desktop, action in ((DesktopBackend(), Action("wait")), (DesktopBackend(wait_s=0.5), Action("wait")),
                            (DesktopBackend(), Action.wait(3))):
        desktop._execute(action)
    assert slept == [2.0, 0.5, 3]
