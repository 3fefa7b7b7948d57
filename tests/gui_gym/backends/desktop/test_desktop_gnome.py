"""OSWorld's desktop itself (``shell="gnome"``): the VM's settings as gsettings defaults, the
terminal key binding, a clear error without GNOME; and a verified task that reads GNOME's
settings, scored on a desktop left alone and on one an agent changed through the keyboard."""

from __future__ import annotations

import os
import subprocess

import pytest

from gui_gym.backends.desktop import gnome
from gui_gym.backends.desktop.backend import DesktopConfig
from gui_gym.backends.desktop.gnome import KEYBINDING_PATH, SETTINGS, keybinding_commands, settings_override, write_settings
from gui_gym.backends.desktop.sandbox import Sandbox, SandboxSpec
from gui_gym.errors import MissingResourceError

from tests.fakes.keyboard_agent import run_in_a_terminal

GNOME_INSTALLED = not gnome.missing_packages()
needs_gnome = pytest.mark.skipif(not GNOME_INSTALLED, reason="GNOME Shell's Debian packages are not installed")
FAVOURITES_TASK = "ec4e3f68-9ea4-4c18-a5c9-69f89d1178b3"
"""os/ec4e3f68 of OSWorld-Verified: "remove vim from favorite apps" (setup sets thunderbird, vim,
google-chrome; OSWorld's check_gnome_favorite_apps expects google-chrome and thunderbird)."""


def gsettings(schema_dir, *args: str) -> str:
    env = dict(os.environ, GSETTINGS_SCHEMA_DIR=str(schema_dir), GSETTINGS_BACKEND="memory")
    return subprocess.run(["gsettings", *args], env=env, capture_output=True, text=True, check=True).stdout.strip()


def test_the_override_names_every_setting_once():
    text = settings_override({"org.a": {"k": "true", "l": "'x'"}, "org.b": {"m": "uint32 0"}})
    assert text == "[org.a]\nk=true\nl='x'\n\n[org.b]\nm=uint32 0\n\n"


@needs_gnome
def test_the_vm_s_settings_are_the_defaults_gsettings_reads(tmp_path):
    folder = write_settings(tmp_path / "schemas")
    favourites = gsettings(folder, "get", "org.gnome.shell", "favorite-apps")
    assert favourites.startswith("['google-chrome.desktop', 'thunderbird.desktop'") and "org.gnome.Terminal.desktop" in favourites
    assert gsettings(folder, "get", "org.gnome.shell", "enabled-extensions") == SETTINGS["org.gnome.shell"]["enabled-extensions"]
    assert gsettings(folder, "get", "org.gnome.shell.extensions.dash-to-dock", "dock-position") == "'LEFT'"
    assert gsettings(folder, "get", "org.gnome.settings-daemon.plugins.media-keys", "custom-keybindings") == \
        f"['{KEYBINDING_PATH}']"
    # a setting left alone keeps GNOME's own default
    assert gsettings(folder, "get", "org.gnome.desktop.notifications", "show-in-lock-screen") == "true"


@needs_gnome
def test_a_setting_gnome_does_not_know_is_a_clear_error(tmp_path):
    schemas = tmp_path / "system"  # a system that has some schema but none of GNOME's
    schemas.mkdir()
    (schemas / "org.example.gschema.xml").write_text(
        '<schemalist><schema id="org.example" path="/org/example/"><key name="k" type="b"><default>true</default>'
        '</key></schema></schemalist>')
    with pytest.raises(RuntimeError, match="schemas org.gnome.desktop.interface, .* are not installed"):
        write_settings(tmp_path / "schemas", schemas=schemas)
    with pytest.raises(RuntimeError, match="glib-compile-schemas failed: No such key “absent” in schema “org.example”"):
        write_settings(tmp_path / "schemas", schemas=schemas, settings={"org.example": {"absent": "true"}})


@needs_gnome
def test_ctrl_alt_t_is_a_custom_key_binding_of_the_settings_daemon(tmp_path):
    folder = write_settings(tmp_path / "schemas")
    commands = keybinding_commands()
    assert [c[3:] for c in commands] == [["name", "Terminal"], ["command", "gnome-terminal"],
                                          ["binding", "<Primary><Alt>t"]]
    for command in commands:  # each is a valid write of the relocatable schema at its path
        subprocess.run(command, env=dict(os.environ, GSETTINGS_SCHEMA_DIR=str(folder), GSETTINGS_BACKEND="memory"),
                       check=True, capture_output=True)


def test_an_unknown_shell_is_refused():
    with pytest.raises(ValueError, match="shell must be one of \\['openbox', 'gnome'\\], received 'kde'"):
        DesktopConfig(shell="kde")


def test_gnome_without_its_packages_names_them(monkeypatch, tmp_path):
    monkeypatch.setattr(gnome, "FILES", {tmp_path / "absent": "gnome-shell-extension-dashtodock"})
    with pytest.raises(MissingResourceError, match="apt-get install gnome-shell-extension-dashtodock.*shell='openbox'"):
        Sandbox(SandboxSpec(shell="gnome")).start()


SETTINGS_TASKS = {
    FAVOURITES_TASK: "gsettings set org.gnome.shell favorite-apps \"['thunderbird.desktop', 'google-chrome.desktop']\"",
    "a4d98375-215b-4a4d-aee9-3d4370fccc41": "gsettings set org.gnome.desktop.screensaver lock-enabled true",
    "bedcedc4-4d72-425e-ad62-21960b11fe0d": "gsettings set org.gnome.desktop.session idle-delay 0",
    "f9be0997-4b7c-45c5-b05c-4612b44a6118": "gsettings set org.gnome.desktop.notifications show-banners false",
}
"""OSWorld-Verified's tasks on GNOME's settings -> what an agent types on the VM to solve them."""


@pytest.mark.slow
@needs_gnome
@pytest.mark.parametrize("shell", ["openbox", "gnome"])
def test_gnome_s_settings_tasks_score_0_left_alone_and_1_with_the_vm_s_solution(osworld_tasks, shell):
    """GNOME's settings work on both desktops (gsettings reaches dconf through the session bus,
    at the VM's address; coverage counts these tasks runnable on either): each task's setup
    writes its settings, an agent that does nothing scores 0, one that types the gsettings
    command into a terminal it opened with ctrl+alt+t scores 1."""
    import gymnasium as gym

    env = gym.make("GUI/OSWorld-v0", tasks=osworld_tasks, domains=["os"], provider="local", shell=shell,
                   screen_size=(1280, 800), allow_download=False)
    try:
        for task, solution in SETTINGS_TASKS.items():
            env.reset(options={"task_id": task})
            if shell == "gnome":  # ready: GNOME Shell holds ctrl+alt+t for the settings daemon
                probe = ("from Xlib import display; from gui_gym.backends.desktop.gnome import terminal_key_grabbed; "
                         "print(terminal_key_grabbed(display.Display(':0')))")
                assert env.unwrapped.backend.client.execute(["python", "-c", probe])["output"] == "True\n"
            _, reward, terminated, _, info = env.step("DONE")
            assert terminated and reward == 0.0, (task, info.get("evaluation"))
            env.reset(options={"task_id": task})
            run_in_a_terminal(env, solution)
            _, reward, terminated, _, info = env.step("DONE")
            assert terminated and reward == 1.0, (task, info.get("evaluation"))
    finally:
        env.close()


def test_the_home_is_one_gnome_has_run_in_before(tmp_path):
    """GNOME Shell tells a new user once that the screen cannot lock without GDM; the VM's user
    has seen it, so no notification covers the desktop at reset."""
    assert gnome.write_home_state(tmp_path) == [tmp_path / ".local"]
    assert (tmp_path / gnome.LOCK_WARNING_SHOWN).is_file()
