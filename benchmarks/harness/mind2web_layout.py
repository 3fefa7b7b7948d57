"""The Online-Mind2Web v2 result layout, written from a recorded episode.

One folder per task: ``result.json`` (``schema_version: online-mind2web-v2``, ``task``,
``task_id``, ``reference_length``, ``agent_final_answer``, ``action_history``) and
``trajectory/<n>_screenshot.<ext>`` (the format the run stored, WebP by default). The action
history holds only factual actions (what was done on the page, with the screenshot after it,
the url, whether it ran, and the model's thought); the agent's final answer lives in
``agent_final_answer`` and in the closing ``TASK_COMPLETE -> ANSWER: ...`` entry, never among
the facts, because a judge that reads a claimed answer as evidence scores hallucinated
successes.

Each entry's ``screenshot`` is the bare file name inside ``trajectory/``: the benchmark's own
evaluation script (``src/run.py``, ``auto_eval``) joins it to ``<task>/trajectory`` and opens
it for every entry, the closing one included, so an entry must name an image that is there.
A factual step whose screen was not captured is therefore left out of the v2 history (it
stays in the task folder's ``traj.jsonl``), the closing entry shows the last screen captured,
and an episode that captured none gets no v2 folder.

`gui-bench run` writes this for every web episode (one whose observations carry a url), so a
WebJudge-style evaluator can score the folder as it would any Online-Mind2Web submission.
`find_web_episodes` reads such folders back for ``gui-bench judge``: ours, and the v1/v2
folders other agents write.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gui_gym.benchmarks.harness.results import MIND2WEB_DIR, RUN_FILE, TASKS_DIR, link_or_copy
from gui_gym.errors import HarnessError, TaskConfigError
from gui_gym.judges.webjudge.judge import WebTrajectory
from gui_gym.records import RESULT_FILE, TRAJECTORY_FILE, atomic_write_json, load_episode, read_result
from gui_gym.suites.mind2web.history import factual_history

SCHEMA_VERSION = "online-mind2web-v2"
TRAJECTORY_DIR = "trajectory"


def build_result(*, task: str, task_id: str, reference_length: int | None, final_answer: str | None,
                 steps: list[dict[str, Any]], last_screenshot: str, last_url: str | None) -> dict[str, Any]:
    """The v2 ``result.json`` document. `steps` are ``{screenshot, url, action, action_status,
    thought}`` of factual actions; the closing TASK_COMPLETE entry is added here."""
    history = [{"step": i, **step} for i, step in enumerate(steps)]
    answer = final_answer or ""
    history.append({"step": len(history), "screenshot": last_screenshot, "url": last_url,
                    "action": f"TASK_COMPLETE -> ANSWER: {answer}", "action_status": None, "thought": None})
    return {"schema_version": SCHEMA_VERSION, "task": task, "task_id": task_id, "reference_length": reference_length,
            "agent_final_answer": answer, "action_history": history}


def write_from_episode(episode_dir: str | Path, dest: str | Path, *,
                       reference_length: int | None = None) -> dict[str, Any] | None:
    """Write the v2 layout of the recorded episode in `episode_dir` to `dest`; None (nothing
    written) when the episode is not a web episode, has no result yet, or captured no screen."""
    episode_dir, dest = Path(episode_dir), Path(dest)
    if not (episode_dir / RESULT_FILE).is_file() or not (episode_dir / TRAJECTORY_FILE).is_file():
        return None  # not done, or a worker that died before the reset
    result = read_result(episode_dir)
    trajectory = load_episode(episode_dir, screenshots=False)
    if result is None or trajectory.start_url is None:
        return None
    captured = [name for name in (trajectory.start_screenshot_file, *(s.screenshot_file for s in trajectory.steps))
                if name and (episode_dir / name).is_file()]
    if dest.exists():
        shutil.rmtree(dest)
    if not captured:
        return None  # the official reader opens a screenshot for every entry: there is none to give
    shots = dest / TRAJECTORY_DIR
    shots.mkdir(parents=True)
    steps: list[dict[str, Any]] = []
    placed: dict[str, str] = {}  # source file -> its name in trajectory/: a screen shown twice is one file

    def place_shot(source: str) -> str:
        if source not in placed:
            placed[source] = f"{len(steps)}_screenshot{Path(source).suffix}"  # the index of the entry it illustrates
            link_or_copy(episode_dir / source, shots / placed[source])
        return placed[source]

    for step, line in factual_history(trajectory.steps):
        if step.screenshot_file in captured:
            steps.append({"screenshot": place_shot(step.screenshot_file), "url": step.url, "action": line,
                          "action_status": "FAILED" if step.action_error else "SUCCESS", "thought": step.thought})
    last_url = next((s.url for s in reversed(trajectory.steps) if s.url), trajectory.start_url)
    document = build_result(task=str(result.instruction or trajectory.instruction or ""), task_id=result.task_id,
                            reference_length=reference_length, final_answer=result.final_answer, steps=steps,
                            last_screenshot=place_shot(captured[-1]), last_url=last_url)
    atomic_write_json(dest / RESULT_FILE, document)
    return document


# ---- reading result folders (ours, and other agents' v1/v2) ----------------------------------

V1_SCHEMA = "online-mind2web-v1"
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp"})
_COMPLETE_PREFIX = "TASK_COMPLETE"


@dataclass
class RecordedWebEpisode:
    """One task folder to judge: where it is, what it holds, and the ground truth if known."""

    key: str
    folder: Path
    schema: str
    trajectory: WebTrajectory
    ground_truth: bool | None


def read_task_folder(folder: str | Path) -> tuple[str, WebTrajectory]:
    """(schema, trajectory) of one Online-Mind2Web task folder: ``result.json`` in the v2
    layout (factual steps, the answer apart) or v1 (``action_history`` as strings, optional
    ``final_result_response``), screenshots from ``trajectory/`` ordered by the first integer
    in their names, as the official evaluator orders them (v2 files without that folder may
    carry them in each step's ``screenshot``: a path, a data URL or base64)."""
    folder = Path(folder)
    path = folder / RESULT_FILE
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TaskConfigError(f"{path}: cannot read an Online-Mind2Web result: {exc}") from exc
    if not isinstance(result, dict):
        raise TaskConfigError(f"{path}: expected a JSON object, received {type(result).__name__}")
    task = next((result[k] for k in ("task", "confirmed_task", "task_description") if isinstance(result.get(k), str)), None)
    if not task:
        raise TaskConfigError(f"{path}: expected the task text under 'task', received {result.get('task')!r}")
    history = result.get("action_history") or []
    if not isinstance(history, list):
        raise TaskConfigError(f"{path}: expected 'action_history' as a list, received {type(history).__name__}")
    schema = result.get("schema_version") or V1_SCHEMA
    if schema not in (SCHEMA_VERSION, V1_SCHEMA):
        raise TaskConfigError(f"{path}: expected schema_version {SCHEMA_VERSION!r} (or none, for v1), received {schema!r}")
    shots = _trajectory_images(folder)
    if schema == SCHEMA_VERSION:
        entries = [e if isinstance(e, dict) else {"action": str(e)} for e in history]
        actions = [_factual_line(e) for e in entries if not str(e.get("action", "")).startswith(_COMPLETE_PREFIX)]
        answer = result.get("agent_final_answer")
        if answer is None:
            closing = [str(e.get("action")) for e in entries if str(e.get("action", "")).startswith(_COMPLETE_PREFIX)]
            answer = closing[-1].partition("ANSWER:")[2].strip() if closing else None
        if not shots:
            shots = [s for s in (_entry_image(folder, e.get("screenshot")) for e in entries) if s is not None]
    else:
        actions = [e.get("action", json.dumps(e)) if isinstance(e, dict) else str(e) for e in history]
        answer = result.get("final_result_response")
    names = [s.relative_to(folder).as_posix() if isinstance(s, Path) else f"screenshot {i}" for i, s in enumerate(shots)]
    trajectory = WebTrajectory(task_id=str(result.get("task_id") or folder.name), task=task, actions=actions,
                               screenshots=shots, final_answer=None if answer is None else str(answer),
                               screenshot_names=names)
    return schema, trajectory


def find_web_episodes(root: str | Path, labels: dict[str, bool] | None = None) -> list[RecordedWebEpisode]:
    """Every task folder under `root` to judge: the ``mind2web/`` episodes of a gui-bench results
    folder (ground truth: the env's own success, where the env has a success check and the
    episode did not end in an error), or the ``<task_id>/result.json`` folders of an
    Online-Mind2Web results folder (or `root` itself, one task). `labels` (task id or folder
    name -> success) give or override the ground truth."""
    root = Path(root)
    truths: dict[str, bool | None] = {}
    if (root / RUN_FILE).is_file():
        folders = sorted(p.parent for p in (root / MIND2WEB_DIR).glob(f"*/{RESULT_FILE}"))
        for folder in folders:
            truths[folder.name] = _env_truth(root / TASKS_DIR / folder.name)
    elif (root / RESULT_FILE).is_file():
        folders = [root]
    else:
        folders = sorted(p.parent for p in root.glob(f"*/{RESULT_FILE}"))
    if not folders:
        raise HarnessError(f"{root} holds no web episodes to judge: expected a gui-bench results folder with mind2web/ "
                           "episodes, or Online-Mind2Web results (<task_id>/result.json with trajectory/ screenshots)")
    episodes = []
    for folder in folders:
        schema, trajectory = read_task_folder(folder)
        truth = truths.get(folder.name)
        for name in (trajectory.task_id, folder.name):
            if labels and name in labels:
                truth = labels[name]
        episodes.append(RecordedWebEpisode(folder.name, folder, schema, trajectory, truth))
    return episodes


def read_labels(path: str | Path) -> dict[str, bool]:
    """Ground truth from a JSON object ``{task_id: true | false | "success" | "failure" | 1 | 0}``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise HarnessError(f"labels file {str(path)!r}: cannot read it as JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise HarnessError(f"labels file {str(path)!r}: expected a JSON object {{task_id: true|false}}, "
                           f"received {type(data).__name__}")
    words = {"success": True, "failure": False, True: True, False: False, 1: True, 0: False}
    labels = {}
    for task_id, value in data.items():
        key = value.lower() if isinstance(value, str) else value
        if isinstance(key, float) or key not in words:
            raise HarnessError(f"labels file {str(path)!r}: task {task_id!r}: expected true/false, 1/0 or "
                               f"\"success\"/\"failure\", received {value!r}")
        labels[task_id] = words[key]
    return labels


def _env_truth(folder: Path) -> bool | None:
    """The env's own success, or None where it is no ground truth: the episode ended in an error,
    or the env had no success check of its own (live Online-Mind2Web, scored by a judge)."""
    result = read_result(folder)
    if result is None or result.error or result.meta.get("evaluator") == "judge":
        return None
    return result.success


def _factual_line(entry: dict[str, Any]) -> str:
    line = str(entry.get("action", ""))
    return line + " [FAILED]" if str(entry.get("action_status") or "").upper() == "FAILED" else line


def _trajectory_images(folder: Path) -> list[Path]:
    shots = folder / TRAJECTORY_DIR
    if not shots.is_dir():
        return []
    images = [p for p in shots.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]
    numbered = [p for p in images if re.search(r"\d+", p.name)]
    return sorted(numbered, key=lambda p: (int(re.search(r"\d+", p.name).group()), p.name))


def _entry_image(folder: Path, value: Any) -> Path | bytes | None:
    if not isinstance(value, str) or not value:
        return None
    if value.startswith("data:"):
        return base64.b64decode(value.partition(",")[2])
    for candidate in (folder / value, folder / TRAJECTORY_DIR / value):
        if candidate.is_file():
            return candidate
    try:
        return base64.b64decode(value, validate=True) if len(value) > 64 else None
    except ValueError:
        return None
