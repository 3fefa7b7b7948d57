"""MMBench-GUI L1 and L2 records, read from the official layout on disk.

The official data (https://huggingface.co/datasets/OpenGVLab/MMBench-GUI) is laid out as::

    DATA_ROOT/MMBench-GUI/L1_annotations.json
    DATA_ROOT/MMBench-GUI/L2_annotations.json
    DATA_ROOT/MMBench-GUI/offline_images/<platform>/<image_path>

``DATA_ROOT`` comes from ``data_root=``, else ``$GUI_GYM_MMBENCH_ROOT``, else VLMEvalKit's
``$LMUData`` (what the official code reads); it may also name the ``MMBench-GUI`` folder
itself. ``data_root="sample"`` selects the small sample bundled with gui-gym. An L1 record
holds one screenshot and a group of questions (one per difficulty); each question is one
task, as in the official "all" mode. An L2 record is one grounding target.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.mmbench.answers import LETTERS

SAMPLE = "sample"
SAMPLE_ROOT = Path(__file__).resolve().parent / "sample"
ROOT_ENV_VAR = "GUI_GYM_MMBENCH_ROOT"
OFFICIAL_ENV_VAR = "LMUData"
DATA_URL = "https://huggingface.co/datasets/OpenGVLab/MMBench-GUI"
PLATFORMS = ("os_windows", "os_mac", "os_linux", "os_ios", "os_android", "os_web")
DIFFICULTIES = ("easy", "medium", "hard")
GROUNDING_TYPES = ("basic", "advanced")
DATA_TYPES = ("icon", "text")


@dataclass(frozen=True)
class Question:
    """One L1 multiple-choice question about one screenshot."""

    task_id: str
    image: Path
    question: str
    options: dict[str, str]
    """Letter -> option text, letters in order (A, B, ...)."""
    answer: str
    difficulty: str
    platform: str
    app_name: str
    explanation: str = ""
    hint: str | None = None


@dataclass(frozen=True)
class Target:
    """One grounding target: an instruction and the box it refers to on one screenshot."""

    task_id: str
    image: Path
    instruction: str
    bbox: tuple[float, float, float, float]
    """[x1, y1, x2, y2], normalized or in pixels as in the file (see `normalize_box`)."""
    data_type: str
    platform: str
    app_name: str
    grounding_type: str | None = None
    """basic | advanced for MMBench-GUI; None for the ScreenSpot sets, which have no such split."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Other facts a source carries (ScreenSpot-Pro's group, ScreenSpot's data_source)."""


def how_to_get(level: str) -> str:
    return (f"Download L1_annotations.json, L2_annotations.json and the offline images from {DATA_URL}, "
            "lay them out as DATA_ROOT/MMBench-GUI/{L1_annotations.json, L2_annotations.json, "
            f"offline_images/<platform>/...}}, then pass data_root=DATA_ROOT or set ${ROOT_ENV_VAR}; "
            f"data_root='sample' runs the small sample bundled with gui-gym (MMBench-GUI {level}).")


def resolve_root(data_root: str | os.PathLike[str] | None, env_vars: tuple[str, ...], what: str, hint: str) -> Path:
    """The data folder: `data_root`, else the first of `env_vars` that is set; ``"sample"``
    means the bundled sample."""
    if data_root is None:
        for name in env_vars:
            if os.environ.get(name):
                data_root = os.environ[name]
                break
        else:
            names = " or ".join(f"${name}" for name in env_vars)
            raise MissingResourceError(f"{what} data not found: no data_root was given and {names} is not set. {hint}")
    if str(data_root) == SAMPLE:
        return SAMPLE_ROOT
    root = Path(data_root).expanduser()
    if not root.is_dir():
        raise MissingResourceError(f"{what} data not found: {root} is not a folder. {hint}")
    return root


def mmbench_folder(data_root: str | os.PathLike[str] | None, level: str) -> Path:
    """The MMBench-GUI folder holding ``{level}_annotations.json`` and ``offline_images/``."""
    root = resolve_root(data_root, (ROOT_ENV_VAR, OFFICIAL_ENV_VAR), "MMBench-GUI", how_to_get(level))
    folder = root / "MMBench-GUI" if (root / "MMBench-GUI").is_dir() else root
    for needed in (folder / f"{level}_annotations.json", folder / "offline_images"):
        if not needed.exists():
            raise MissingResourceError(f"MMBench-GUI data not found: {needed} does not exist. {how_to_get(level)}")
    return folder


def read_records(path: Path) -> list[dict[str, Any]]:
    """A JSON file holding a list of record objects."""
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TaskConfigError(f"{path}: expected a JSON list of records, could not read it ({exc})") from exc
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise TaskConfigError(f"{path}: expected a JSON list of record objects, received {type(records).__name__}")
    return records


def require(record: dict[str, Any], key: str, where: str, kind: type | tuple[type, ...] = str) -> Any:
    """`record[key]`, checked present and of `kind`."""
    if key not in record or record[key] is None:
        raise TaskConfigError(f"{where}: missing field {key!r}")
    value = record[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise TaskConfigError(f"{where}: field {key!r} must be a {names}, received {value!r}")
    return value


def image_path(folder: Path, platform: str, relative: str) -> Path:
    """``offline_images/<platform>/<image_path>``; paths already prefixed by their platform
    (as the official loader leaves them) are taken as they are."""
    images = folder / "offline_images"
    return images / relative if relative.startswith(f"{platform}/") else images / platform / relative


def load_l1(data_root: str | os.PathLike[str] | None) -> list[Question]:
    """Every L1 question, one per (record, group)."""
    folder = mmbench_folder(data_root, "L1")
    path = folder / "L1_annotations.json"
    questions: list[Question] = []
    seen: set[str] = set()
    for position, record in enumerate(read_records(path)):
        where = f"{path} record {position}"
        index = record.get("index", position)
        platform = require(record, "platform", where)
        image = image_path(folder, platform, require(record, "image_path", where))
        groups = require(record, "groups", where, list)
        for number, group in enumerate(groups):
            at = f"{where} group {number}"
            if not isinstance(group, dict):
                raise TaskConfigError(f"{at}: expected a question object, received {group!r}")
            options = _options(require(group, "options", at, dict), at)
            answer = require(group, "answer", at).strip().upper()
            if answer not in options:
                raise TaskConfigError(f"{at}: answer {answer!r} is not one of the options {list(options)}")
            difficulty = require(group, "difficulty", at)
            task_id = f"mmbench-l1.{index}.{difficulty}"
            if task_id in seen:
                task_id = f"{task_id}.{number}"
            seen.add(task_id)
            questions.append(Question(
                task_id=task_id, image=image, question=require(group, "question", at), options=options,
                answer=answer, difficulty=difficulty, platform=platform,
                app_name=str(record.get("app_name") or ""), explanation=str(group.get("explanation") or ""),
                hint=group.get("hint") or None))
    return questions


def _options(raw: dict[str, Any], where: str) -> dict[str, str]:
    unknown = [k for k in raw if k not in LETTERS]
    if unknown:
        raise TaskConfigError(f"{where}: option keys must be letters A-F, received {unknown}")
    options = {k: str(raw[k]) for k in LETTERS if raw.get(k) is not None}
    if len(options) < 2:
        raise TaskConfigError(f"{where}: expected at least 2 options, received {raw!r}")
    return options


def load_l2(data_root: str | os.PathLike[str] | None) -> list[Target]:
    """Every L2 grounding target."""
    folder = mmbench_folder(data_root, "L2")
    path = folder / "L2_annotations.json"
    targets: list[Target] = []
    for position, record in enumerate(read_records(path)):
        where = f"{path} record {position}"
        platform = require(record, "platform", where)
        grounding_type = require(record, "grounding_type", where)
        if grounding_type not in GROUNDING_TYPES:
            raise TaskConfigError(f"{where}: grounding_type must be one of {GROUNDING_TYPES}, received {grounding_type!r}")
        targets.append(Target(
            task_id=f"mmbench-l2.{record.get('index', position)}",
            image=image_path(folder, platform, require(record, "image_path", where)),
            instruction=require(record, "instruction", where),
            bbox=tuple(require(record, "bbox", where, list)),
            data_type=data_type(require(record, "data_type", where), where),
            platform=platform, app_name=str(record.get("app_name") or ""), grounding_type=grounding_type))
    return check_unique(targets, path)


def data_type(value: str, where: str) -> str:
    if value not in DATA_TYPES:
        raise TaskConfigError(f"{where}: data_type must be one of {DATA_TYPES}, received {value!r}")
    return value


def check_unique(targets: list[Target], source: Path) -> list[Target]:
    ids = [t.task_id for t in targets]
    if len(set(ids)) != len(ids):
        duplicates = sorted({i for i in ids if ids.count(i) > 1})[:5]
        raise TaskConfigError(f"{source}: task ids must be unique, these repeat: {duplicates}")
    return targets
