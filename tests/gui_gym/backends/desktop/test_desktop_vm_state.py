"""The state OSWorld's VM starts from where tasks read it: the output volume below the maximum,
Chrome's profile that has run before, Ubuntu's default video player; in files, and read back
in a real sandbox the way OSWorld's evaluators read them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_gym.backends.desktop.inside import vm_state
from gui_gym.backends.desktop.gnome import missing_packages
from gui_gym.backends.desktop.inside.vm_state import VIDEO_PLAYER, VOLUME_PERCENT, video_types, write_home_state, write_system_state


def test_the_home_has_the_vm_s_volume_and_a_chrome_profile_that_has_run(tmp_path, monkeypatch):
    system = tmp_path / "default.pa"
    system.write_text("load-module module-always-sink\n")
    monkeypatch.setattr(vm_state, "SYSTEM_PULSE_SCRIPT", system)
    write_home_state(tmp_path / "home")
    script = (tmp_path / "home/.config/pulse/default.pa").read_text().splitlines()
    assert script == [".include /etc/pulse/default.pa", f"set-sink-volume @DEFAULT_SINK@ {65536 * VOLUME_PERCENT // 100}"]
    assert VOLUME_PERCENT < 100
    profile = tmp_path / "home/.config/google-chrome"
    preferences = json.loads((profile / "Default/Preferences").read_text())
    assert preferences["default_search_provider_data"]["template_url_data"]["short_name"] == "Google"
    assert preferences["signin"] == {"allowed": False, "allowed_on_next_startup": False}
    assert (profile / "First Run").is_file()


def test_without_pulseaudio_no_script_is_written(tmp_path, monkeypatch):
    monkeypatch.setattr(vm_state, "SYSTEM_PULSE_SCRIPT", tmp_path / "absent.pa")
    write_home_state(tmp_path)
    assert not (tmp_path / ".config/pulse").exists()


def test_totem_is_the_default_for_the_video_types_it_declares(tmp_path, monkeypatch):
    apps = tmp_path / "apps"
    apps.mkdir()
    (apps / VIDEO_PLAYER).write_text("[Desktop Entry]\nName=Videos\nMimeType=application/ogg;video/mp4;video/webm;\n"
                                     "Name[de]=Videos %s\n")
    monkeypatch.setattr(vm_state, "APPLICATION_FOLDERS", (tmp_path / "none", apps))
    assert video_types(VIDEO_PLAYER) == ["video/mp4", "video/webm"]
    write_system_state(tmp_path / "share")
    assert (tmp_path / "share/applications/defaults.list").read_text().splitlines() == [
        "[Default Applications]", f"video/mp4={VIDEO_PLAYER}", f"video/webm={VIDEO_PLAYER}"]


def test_without_totem_no_default_is_claimed(tmp_path, monkeypatch):
    monkeypatch.setattr(vm_state, "APPLICATION_FOLDERS", (tmp_path,))
    write_system_state(tmp_path / "share")
    assert not (tmp_path / "share").exists()


@pytest.mark.slow
@pytest.mark.skipif(not Path("/usr/share/applications", VIDEO_PLAYER).is_file(), reason="Totem is not installed")
def test_in_a_sandbox_the_evaluators_read_the_vm_s_values():
    from gui_gym.backends.desktop import DesktopBackend, DesktopConfig

    backend = DesktopBackend(DesktopConfig(provider="local", screen_size=(1280, 800), pool_size=0, shell="openbox"))
    backend.start()
    try:
        volume = backend.client.execute(  # os/28cc3b7e's own reading
            "pulseaudio --start\npactl list sinks | grep '^[[:space:]]Volume:' | head -n 1 | awk '{print $5}' "
            "| sed 's/%//g'", shell=True)
        assert volume["output"] == f"{VOLUME_PERCENT}\n", volume
        assert backend.client.execute(["xdg-mime", "query", "default", "video/mp4"])["output"] == f"{VIDEO_PLAYER}\n"
        set_vlc = backend.client.execute(["xdg-mime", "default", "vlc.desktop", "video/mp4"])
        assert set_vlc["returncode"] == 0, set_vlc  # what an agent does to solve multi_apps/937087b6
        assert backend.client.execute(["xdg-mime", "query", "default", "video/mp4"])["output"] == "vlc.desktop\n"
    finally:
        backend.close()


@pytest.mark.slow
@pytest.mark.parametrize("shell", [
    "openbox", pytest.param("gnome", marks=pytest.mark.skipif(bool(missing_packages()), reason="GNOME is not installed"))])
def test_the_volume_task_scores_1_once_an_agent_turns_it_up_in_a_terminal(osworld_tasks, shell):
    """os/28cc3b7e with the VM's solution: ``pactl`` in a terminal reaches the user's PulseAudio,
    which runs from the start (before: "Connection refused", the evaluator started PulseAudio
    itself and read 40 %, the task scored 0); left alone it scores 0."""
    import gymnasium as gym

    from tests.fakes.keyboard_agent import run_in_a_terminal

    env = gym.make("GUI/OSWorld-v0", tasks=osworld_tasks, domains=["os"], provider="local", shell=shell,
                   screen_size=(1280, 800), allow_download=False, pool_size=0)
    try:
        for solve, score in ((False, 0.0), (True, 1.0)):
            env.reset(options={"task_id": "28cc3b7e-b194-4bc9-8353-d04c0f4d56d2"})
            if solve:
                run_in_a_terminal(env, "pactl set-sink-volume @DEFAULT_SINK@ 100%")
            _, reward, terminated, _, info = env.step("DONE")
            assert terminated and reward == score, info.get("evaluation")
    finally:
        env.close()
