"""The extras table against pyproject.toml, the one-line error, and each door that checks it."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import tomllib
from pathlib import Path

import gymnasium as gym
import pytest
from packaging.requirements import Requirement

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.errors import MissingDependencyError
from gui_gym.extras import EXTRA_MODULES, missing_modules, require_extra

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make `modules` look uninstalled to `require_extra` (it only looks them up)."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in modules else real(name, *a))


def normalized(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_each_extras_modules_are_what_its_distributions_install():
    """The dev venv holds every extra this Python can install, so each module can be traced to
    the distributions that install it (Xlib: python-xlib, and python3-xlib through pyautogui):
    every module of the table comes from a distribution of its extra, and every distribution of
    it is checked. An extra whose markers exclude this Python (cube: Python >= 3.12) is checked
    by the tests that run in its own venv (tests/gui_gym/test_cube_venv.py)."""
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    owners = importlib.metadata.packages_distributions()
    assert set(EXTRA_MODULES) == set(extras) - {"dev", "vllm"}
    for extra, modules in EXTRA_MODULES.items():
        if not any(Requirement(r).marker is None or Requirement(r).marker.evaluate() for r in extras[extra]):
            continue
        wanted = {normalized(r) for r in extras[extra]}
        owned = {module: {owner.lower().replace("_", "-") for owner in owners[module]} for module in modules}
        assert all(owned[module] & wanted for module in modules), (extra, owned)  # no module of another extra
        assert set().union(*owned.values()) >= wanted, extra  # every distribution checked


def test_a_missing_module_gives_one_line_naming_the_extra(monkeypatch):
    assert missing_modules("desktop") == ()
    require_extra("desktop", "GUI/OSWorld-v0")  # all there: nothing happens
    hide(monkeypatch, "Xlib", "mss")
    expected = r"^GUI/OSWorld-v0 needs the 'desktop' extra, which this install lacks \(no module mss, Xlib\): " \
               r"pip install 'gui-gym\[desktop\]'$"
    with pytest.raises(MissingDependencyError, match=expected) as caught:
        require_extra("desktop", "GUI/OSWorld-v0")
    assert (caught.value.extra, caught.value.missing) == ("desktop", ("mss", "Xlib"))
    assert isinstance(caught.value, ImportError)  # callers that catch ImportError still do
    hide(monkeypatch, "verl")
    expected = r"\(no module verl\): pip install 'gui-gym\[verl\]' and pip install --no-deps 'verl==0\.9\.1'"
    with pytest.raises(MissingDependencyError, match=expected):
        require_extra("verl", "gui_gym.trainers.verl_plugins")
    with pytest.raises(KeyError, match=r"no extra named 'gpu'; the extras are desktop, android"):
        missing_modules("gpu")


@pytest.mark.parametrize("env_id, extra, module", [("GUI/OSWorld-v0", "desktop", "Xlib"),
                                                   ("GUI/Android-v0", "android", "adbutils")])
def test_an_env_without_its_extra_fails_at_make(monkeypatch, env_id, extra, module):
    """At make, before a sandbox or an adb server is asked for anything."""
    hide(monkeypatch, module)
    with pytest.raises(MissingDependencyError, match=rf"^{env_id} needs the '{extra}' extra, .*\(no module {module}\): "
                                                     rf"pip install 'gui-gym\[{extra}\]'$"):
        gym.make(env_id)


def test_gui_train_without_torch_says_so_in_one_line(monkeypatch, capsys):
    from gui_gym.trainers import main

    hide(monkeypatch, "torch")
    assert main(["--algo", "grpo", "--print-config"]) == 2
    assert capsys.readouterr().err == ("gui-train: error: gui-train needs the 'train' extra, which this install lacks "
                                       "(no module torch): pip install 'gui-gym[train]'\n")
    monkeypatch.undo()
    assert main(["--algo", "grpo", "--print-config"]) == 0  # with it, the command runs


def test_gui_train_on_remote_envs_without_ray_says_so_in_one_line(monkeypatch, capsys):
    from gui_gym.trainers.cli import main

    hide(monkeypatch, "ray")
    assert main(["--algo", "grpo", "--ray", "--set", "episode_budget=8"]) == 2
    assert capsys.readouterr().err == ("gui-train: error: gui_gym.remote (remote envs, --ray) needs the 'distributed' "
                                       "extra, which this install lacks (no module ray): "
                                       "pip install 'gui-gym[distributed]'\n")


def test_the_cube_env_without_cube_says_so_and_which_python(monkeypatch):
    hide(monkeypatch, "cube")
    with pytest.raises(MissingDependencyError, match=r"^GUI/CUBE-v0 needs the 'cube' extra, .*\(no module cube\): "
                                                     r"pip install 'gui-gym\[cube\]' on Python >= 3\.12"):
        gym.make("GUI/CUBE-v0", benchmark="arithmetic-cube")
