"""The distribution as a user installs it: the wheel, built from this checkout, in a fresh venv.

With the core dependencies only (``pip install gui-gym``), every env id either works or fails
at once with one line naming the extra to install, and so do ``gui-train``, ``gui-bench run
--ray`` and the verl plug-ins. Beside OpenAI's Agents SDK (whose package is also called
``agents``), ``gui-bench run`` works and ``import agents`` is still OpenAI's: the wheel adds
only ``gui_gym`` to site-packages. The venvs install the wheels a user's ``pip install`` would
take, downloaded from the package index ahead of the run (`tests/wheelhouse.py`), so no test
depends on reaching the index; the wheel is built once per module and each venv once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from gui_gym.extras import EXTRA_NOTES
from tests.wheelhouse import OPENAI_AGENTS, wheelhouse_dir

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]
"""Slow: building the wheel and each venv takes a minute or two on a loaded machine (counted in
the timeout of the first test that uses them)."""

REPO_ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("setup.py", "pyproject.toml", "README.md", "gui_gym", "agents", "trainers", "benchmarks")
"""What the wheel is built from (copied first: setuptools writes build/ beside its sources, and a
stale build/lib of the checkout's would end up in the wheel)."""
INSTALL_TIMEOUT_S = 900
DOOR_TIMEOUT_S = 120
"""A guard against a hang, not a measure: a door that names its extra does so in about a second."""

FAILING_DOORS = {
    "GUI/OSWorld-v0": "desktop",
    "GUI/Android-v0": "android",
    "GUI/MiniWoB-v0": "miniwob",
    "GUI/CUBE-v0": "cube",
}
"""The env ids that need an extra, and which."""
WORKING_ENVS = {
    "GUI/Demo-v0": {},
    "GUI/LocalWeb-v0": {},
    "GUI/OnlineMind2Web-v0": {},
    "GUI/MMBench-GUI-L1-v0": {"data_root": "sample"},
    "GUI/MMBench-GUI-L2-v0": {"data_root": "sample"},
    "GUI/AndroidControl-v0": {},
}
"""The env ids that run on the core install (with their bundled samples), one reset each."""

TRY_DOORS = """
import json, sys, time
import gymnasium as gym
import gui_gym
from gui_gym.errors import MissingDependencyError
out = {}
for env_id, kwargs in json.loads(sys.argv[1]).items():
    start = time.monotonic()
    try:
        env = gym.make(env_id, **kwargs)
        try:
            env.reset(seed=0)
        finally:
            env.close()
        outcome = "works"
    except MissingDependencyError as exc:
        outcome = str(exc)
    out[env_id] = [outcome, round(time.monotonic() - start, 1)]
print(json.dumps(out))
"""


def run(command: list[str], cwd: Path, timeout: float = DOOR_TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        path = REPO_ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, source / name)
    out = tmp_path_factory.mktemp("dist")
    built = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                 str(source)], source, INSTALL_TIMEOUT_S)
    assert built.returncode == 0, built.stderr
    (found,) = out.glob("gui_gym-*.whl")
    return found


@pytest.fixture(scope="module")
def make_venv(tmp_path_factory, wheel: Path) -> Callable[..., Path]:
    """``make_venv(name, *packages)``: a fresh venv holding the wheel, its core dependencies and
    `packages`, its ``bin`` folder returned, all from the downloaded wheels. The venv gets no pip of its own (this interpreter's
    pip installs into it with ``--python``: a second faster than seeding one), and no bytecode
    (``--no-compile``: what a test imports is compiled when imported)."""

    def make(name: str, *packages: str) -> Path:
        venv = tmp_path_factory.mktemp(name) / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=DOOR_TIMEOUT_S)
        installed = run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                         "--no-compile", "--no-index", "--find-links", str(wheelhouse_dir()), str(wheel), *packages],
                        venv, INSTALL_TIMEOUT_S)
        assert installed.returncode == 0, installed.stderr
        return venv / "bin"

    return make


@pytest.fixture(scope="module")
def core(make_venv) -> Path:
    return make_venv("core")


def test_every_env_id_works_or_names_its_extra_on_the_core_install(core: Path, tmp_path: Path):
    from gui_gym.registration import ENV_IDS

    assert set(FAILING_DOORS) | set(WORKING_ENVS) == set(ENV_IDS)  # a new id must be placed in one of them
    doors = {**{env_id: {} for env_id in FAILING_DOORS}, **WORKING_ENVS}
    done = run([str(core / "python"), "-c", TRY_DOORS, json.dumps(doors)], tmp_path, DOOR_TIMEOUT_S * len(doors))
    assert done.returncode == 0, done.stderr
    outcomes = json.loads(done.stdout)
    for env_id, extra in FAILING_DOORS.items():
        message = outcomes[env_id][0]
        assert message.startswith(f"{env_id} needs the '{extra}' extra, which this install lacks (no module ")
        assert message.endswith(f"pip install 'gui-gym[{extra}]'{EXTRA_NOTES.get(extra, '')}") and "\n" not in message
    assert {env_id: outcomes[env_id][0] for env_id in WORKING_ENVS} == {env_id: "works" for env_id in WORKING_ENVS}
    print("seconds per env id (make, and reset where it works):", {k: v[1] for k, v in outcomes.items()})


@pytest.mark.parametrize("command, extra", [
    (["gui-train", "--algo", "grpo", "--print-config"], "train"),
    (["gui-bench", "run", "--ray", "--env", "GUI/Demo-v0", "--limit", "1"], "distributed"),
    (["gui-bench", "run", "--agent", "vlm", "--env", "GUI/Demo-v0", "--limit", "1"], "train"),
    (["python", "-c", "import gui_gym.trainers.verl_plugins"], "verl"),
], ids=["gui-train", "gui-bench-run-ray", "gui-bench-run-vlm", "verl-plugins"])
def test_each_command_names_its_extra_on_the_core_install(core: Path, tmp_path: Path, command: list[str], extra: str):
    start = time.monotonic()
    done = run([str(core / command[0]), *command[1:]], tmp_path)
    took = time.monotonic() - start
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert f"needs the '{extra}' extra, which this install lacks" in last and f"pip install 'gui-gym[{extra}]'" in last
    if command[0] != "python":  # a command says it in one line; an import raises the typed error
        assert "Traceback" not in done.stderr, done.stderr
    else:
        assert last.startswith("gui_gym.errors.MissingDependencyError: gui_gym.trainers.verl_plugins needs")
    print(f"{command[0]}: {took:.1f} s")


def test_beside_openai_agents_both_work_and_only_gui_gym_is_added(make_venv, tmp_path: Path):
    venv = make_venv("beside", OPENAI_AGENTS)
    listed = run([str(venv / "python"), "-c", "import json; from importlib.metadata import files; "
                  "print(json.dumps([f.as_posix() for f in files('gui-gym')]))"], tmp_path)
    assert listed.returncode == 0, listed.stderr
    tops = {path.split("/")[0] for path in json.loads(listed.stdout)}
    assert tops == {"gui_gym", "gui_gym-0.1.0.dist-info", ".."}  # "..": the console scripts, in bin/
    assert {p for p in json.loads(listed.stdout) if p.startswith("..")} == {"../../../bin/gui-bench",
                                                                             "../../../bin/gui-train"}
    theirs = run([str(venv / "python"), "-c", "import agents; from agents import Agent, Runner, function_tool; "
                  "print(agents.__file__)"], tmp_path)
    assert theirs.returncode == 0 and "/site-packages/agents/__init__.py" in theirs.stdout, theirs.stderr
    out = tmp_path / "out"
    bench = run([str(venv / "gui-bench"), "run", "--env", "GUI/Demo-v0", "--limit", "1", "--out", str(out)],
                tmp_path, 600)
    assert bench.returncode == 0, bench.stdout + bench.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["overall"]["tasks"], summary["overall"]["success_rate"]) == (1, 1.0), summary
