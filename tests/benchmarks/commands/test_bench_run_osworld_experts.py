"""Expert solutions of real OSWorld-Verified tasks that download nothing, run through
``gui-bench run`` on the default desktop (GNOME) as an agent on OSWorld's VM would act: keys,
typed text and terminal commands, one pyautogui action a step, with no waits beyond the ones
an agent sends. Each scores 1.

They cover what made the same plans score 0 before: an app still starting when the reset
returned (GIMP's plug-in query, Impress's template dialog) took the keys typed into the
agent's terminal; ctrl+alt+t returned before the terminal showed; the evaluation read a file
before the agent's command (``pkill vlc; sleep 1; ... >> vlcrc``) had written it. All of
them run in one ``gui-bench run`` (one env, its warm pool booting the next desktop).
"""

from __future__ import annotations

import json

import pytest

from gui_gym.backends.desktop.gnome import missing_packages
from gui_gym.benchmarks.cli import main

from tests.fakes.keyboard_agent import terminal_actions

AUTOSAVE_EVERY_3_MIN = ('<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop '
                        'oor:name="AutoSaveTimeIntervall" oor:op="fuse"><value>3</value></prop></item>')
EXPERTS: dict[str, list[str]] = {
    # vlc: "store my recordings on the Desktop": a command that draws nothing, read by the evaluation
    "8ba5ae7a-5ae5-4eab-9fcc-5dd4fe3abf89": terminal_actions(
        "pkill vlc; sleep 1; echo 'input-record-path=/home/user/Desktop' >> ~/.config/vlc/vlcrc") + ["WAIT", "DONE"],
    # gimp: "at least 100 undo steps", typed into a terminal opened over GIMP once GIMP is up
    "7b7617bd-57cc-468e-9c91-40c4ec2bcb3d": terminal_actions(
        "echo '(undo-levels 100)' >> ~/.config/GIMP/2.10/gimprc") + ["DONE"],
    # gimp: "remove the dock": Tab in GIMP's window, which has the focus after the reset
    "d52d6308-ec58-42b7-a2c9-de80e4837b2b": ["pyautogui.press('tab')", "DONE"],
    # libreoffice_impress: "auto-save every 3 min": Impress closed, then its settings edited
    "2cd43775-7085-45d8-89fa-9e35c0a915cf": terminal_actions(
        f"pkill soffice; sleep 2; sed -i 's#</oor:items>#{AUTOSAVE_EVERY_3_MIN}</oor:items>#' "
        "~/.config/libreoffice/4/user/registrymodifications.xcu") + ["DONE"],
    # chrome: "where my passwords are stored": the address bar of the Chrome the setup started
    "12086550-11c0-466b-b367-1d9e75b3910e": ["pyautogui.hotkey('ctrl', 'l')",
                                             "pyautogui.typewrite('chrome://password-manager/passwords')",
                                             "pyautogui.press('enter')", "DONE"],
    # os: "'Dim screen when inactive' off": GNOME's setting, from a terminal
    "bedcedc4-4d72-425e-ad62-21960b11fe0d": terminal_actions(
        "gsettings set org.gnome.desktop.session idle-delay 0") + ["DONE"],
}
"""Task id -> the expert's actions, as OSWorld's pyautogui action space writes them."""


@pytest.mark.slow
@pytest.mark.timeout(900)  # six GNOME episodes, GIMP's first start twice: 1 to 3 min, more on a loaded machine
@pytest.mark.skipif(bool(missing_packages()), reason="GNOME Shell's Debian packages are not installed")
def test_expert_keyboard_solutions_score_1_through_gui_bench_run(osworld_tasks, tmp_path, capsys):
    solutions = tmp_path / "experts.jsonl"
    solutions.write_text("".join(json.dumps({"task_id": task, "actions": actions}) + "\n"
                                 for task, actions in EXPERTS.items()))
    out = tmp_path / "run"
    code = main(["run", "--env", "GUI/OSWorld-v0", "--env-arg", f"tasks={osworld_tasks}",
                 "--env-arg", "allow_download=false", "--agent", "replay", "--agent-arg", f"path={solutions}",
                 "--agent-arg", "action_format=pyautogui", "--tasks", ",".join(EXPERTS), "--retries", "0",
                 "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    results = {r["task_id"]: r for r in (json.loads(p.read_text()) for p in out.glob("tasks/*/result.json"))}
    assert set(results) == set(EXPERTS), printed
    failed = {task: (r["score"], r["error"]) for task, r in results.items() if r["score"] != 1.0}
    assert not failed, printed
