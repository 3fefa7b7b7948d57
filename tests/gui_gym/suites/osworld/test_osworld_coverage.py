"""What OSWorld tasks need and what this install meets, on the 369 real tasks."""

from __future__ import annotations

from pathlib import Path

import pytest

from gui_gym.suites.osworld import coverage
from gui_gym.suites.osworld.context import FileCache
from gui_gym.suites.osworld.loader import load_tasks


@pytest.fixture(scope="module")
def specs(osworld_tasks: Path):
    return load_tasks(osworld_tasks)


def test_needs_of_a_real_calc_task(specs):
    spec = next(s for s in specs if s.id == "01b269ae-2111-4a07-81fd-3fcd711993b0")
    need = coverage.needs(spec)
    assert need.setup_types == {"download", "open", "activate_window", "sleep", "execute"}
    assert need.getters == {"vm_file", "cloud_file"} and need.metrics[0][0] == "compare_table"
    assert len(need.downloads) == 2 and not need.web
    assert coverage.unmet(spec) == {"setup": [], "getters": [], "metrics": [], "network": []}
    offline = coverage.unmet(spec, FileCache(Path("/nonexistent-cache"), allow_download=False), network=False)
    assert len(offline["network"]) == 2 and offline["network"][0].startswith("https://huggingface.co/")


def test_every_task_is_evaluable_and_blocked_tasks_have_one_reason(specs):
    """All 369 OSWorld-Verified tasks are scored as OSWorld's code scores them; a task the
    local provider cannot run says why (VS Code is not a Debian package, Google Drive needs
    OSWorld's account, a GNOME setting needs GNOME)."""
    rows = coverage.coverage_table(specs)
    total = rows[-1]
    assert total["domain"] == "TOTAL" and total["tasks"] == 369 and total["evaluable"] == 369
    assert sum(r["tasks"] for r in rows[:-1]) == 369
    assert all(r["offline"] <= r["runnable"] <= r["evaluable"] <= r["tasks"] for r in rows)
    by_domain = {r["domain"]: r for r in rows}
    assert by_domain["vs_code"]["runnable"] == 0 and by_domain["libreoffice_calc"]["runnable"] >= 40
    reasons = {spec.id: coverage.local_blocker(spec) for spec in specs}
    vs_code = [spec for spec in specs if spec.domain == "vs_code"]
    assert all(reasons[spec.id].startswith("VS Code") for spec in vs_code)
    drive = [spec for spec in specs if "googledrive" in coverage.needs(spec).setup_types]
    assert len(drive) == 8 and all("Google Drive" in reasons[spec.id] for spec in drive)
    assert coverage.missing_counts(specs)["metrics"] == {} and coverage.missing_counts(specs)["getters"] == {}


def test_programs_of_shell_commands():
    assert coverage.command_programs(["/bin/bash", "-c", "cd /a; git log | awk '{print $1; x}'; y=$(head -n 1 f)"]) == [
        "git", "awk", "head"]
    assert coverage.command_programs("echo {CLIENT_PASSWORD} | sudo -S apt-get install sysstat") == ["sar"]
    assert coverage.command_programs(["python", "-c", "import pyautogui"]) == ["python"]
    assert coverage.command_programs(["google-chrome", "--remote-debugging-port=1337"]) == ["google-chrome"]


def test_cli_prints_the_table(osworld_tasks: Path, capsys):
    coverage.main([str(osworld_tasks)])
    out = capsys.readouterr().out
    assert "369 tasks loaded" in out and "libreoffice_calc" in out and "evaluable" in out
    assert "TOTAL                  369        369" in out
    assert "not runnable locally, by task:" in out and "vs_code/" in out


def test_gnome_s_settings_and_favourites_tasks_run_on_the_gnome_desktop_only(specs):
    """The tasks that read or write GNOME's settings (gsettings) or its favourite apps are
    runnable when the local desktop is GNOME Shell, and only then; the wallpaper ones neither."""
    gnome_tasks = {"bedcedc4-4d72-425e-ad62-21960b11fe0d", "ec4e3f68-9ea4-4c18-a5c9-69f89d1178b3",
                   "f9be0997-4b7c-45c5-b05c-4612b44a6118", "a4d98375-215b-4a4d-aee9-3d4370fccc41",
                   "f8369178-fafe-40c2-adc4-b9b08a125456"}
    changed = {spec.id for spec in specs
               if coverage.local_blocker(spec, "openbox") != coverage.local_blocker(spec, "gnome")}
    assert changed == gnome_tasks
    for spec in specs:
        if spec.id in gnome_tasks:
            assert "GNOME" in coverage.local_blocker(spec, "openbox") and coverage.local_blocker(spec) is None
    totals = {shell: coverage.coverage_table(specs, shell)[-1] for shell in ("openbox", "gnome")}
    assert totals["gnome"]["runnable"] == totals["openbox"]["runnable"] + 5
    assert totals["gnome"]["offline"] == totals["openbox"]["offline"] + 5
