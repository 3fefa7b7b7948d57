"""Generate the bundled MMBench-GUI sample from a live browser env, deterministically by seed:

    python -m gui_gym.benchmarks.samples.mmbench --seed 0 --out DIR [--env GUI/LocalWeb-v0]

Each screen is a real screenshot of a task of the env (``GUI/LocalWeb-v0`` by default; any
browser env works, e.g. ``GUI/Demo-v0``), taken at the start of the task or a few steps into
its oracle solution, so forms are half filled and pages changed. Element boxes and names
come from the live DOM (`BrowserBackend.elements`) at that moment; questions whose answers
are facts of the app state come from the page (`page_facts`) and, where the task offers
``sample_questions(backend) -> [{question, answer, distractors[, difficulty, explanation]}]``,
from the task itself. Output is the official layout and formats::

    DIR/MMBench-GUI/L1_annotations.json
    DIR/MMBench-GUI/L2_annotations.json
    DIR/MMBench-GUI/offline_images/os_web/<screen>.png

L2 boxes are written half normalized, half in pixels (both occur in the official data).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from PIL import Image

from gui_gym.errors import TaskConfigError
from gui_gym.registration import parse_kwarg
from gui_gym.suites.mmbench.data import DIFFICULTIES
from gui_gym.suites.mmbench.page_facts import grounding_targets, page_questions, question_group

PLATFORM = "os_web"
DEFAULT_ENV = "GUI/LocalWeb-v0"
ATTEMPTS_PER_SCREEN = 4
"""Episodes tried per screen wanted: screens that repeat an earlier one are skipped."""
START_SHARE = 0.5
"""Share of screens taken at a task's start page, where its own `sample_questions` hold."""
MAX_VALUE_CHARS = 40
SHOWN_TEXT_JS = r"""
boxes => boxes.map(([x, y, w, h]) => {
  // the text an element shows: icon buttons show none, whatever their accessible name
  const hit = document.elementFromPoint(x + w / 2, y + h / 2);
  if (!hit) return '';
  const owner = hit.closest('a,button,summary,label,[role],[onclick],[tabindex]') || hit;
  return (owner.innerText || '').replace(/\s+/g, ' ').trim().slice(0, 100);
})
"""


@dataclass
class Screen:
    """One captured screen: pixels, the live element list, and the task's own questions."""

    screenshot: np.ndarray
    elements: list[dict[str, Any]]
    app_name: str
    task_questions: list[dict[str, Any]]


def capture(env: Any, rng: random.Random, count: int, max_steps: int) -> list[Screen]:
    """Up to `count` distinct screens, cycling through the env's tasks in a seeded order, each
    after a seeded number (0..`max_steps`) of the task's oracle actions."""
    base = env.unwrapped
    task_ids = sorted(base.task_ids)
    rng.shuffle(task_ids)
    screens: list[Screen] = []
    seen: set[bytes] = set()
    for attempt in range(count * ATTEMPTS_PER_SCREEN):
        if len(screens) == count:
            break
        task_id = task_ids[attempt % len(task_ids)]
        obs, info = env.reset(options={"task_id": task_id, "instance_seed": rng.randrange(2**31)})
        taken = 0
        for _ in range(0 if max_steps == 0 or rng.random() < START_SHARE else rng.randint(1, max_steps)):
            try:
                action = base.oracle_action()
            except NotImplementedError:
                break
            if action.is_terminal:
                break
            obs, _, terminated, truncated, info = env.step(action)
            taken += 1
            if terminated or truncated:
                break
        digest = hashlib.sha256(obs["screenshot"].tobytes()).digest()
        if digest in seen:  # the same screen again (a task whose first steps change nothing)
            continue
        seen.add(digest)
        task, backend = base.task, base.backend
        offered = getattr(task, "sample_questions", None)
        questions = offered(backend) if callable(offered) and taken == 0 else []  # facts of the start page
        elements = backend.elements()
        for element, text in zip(elements, backend.evaluate(SHOWN_TEXT_JS, [e["bbox"] for e in elements])):
            element["shown_text"] = text
        screens.append(Screen(obs["screenshot"], elements, info["domain"], _checked_questions(questions, task_id)))
    return screens


def _checked_questions(questions: Any, task_id: str) -> list[dict[str, Any]]:
    where = f"task {task_id!r} sample_questions()"
    if not isinstance(questions, list):
        raise TaskConfigError(f"{where}: expected a list of question dicts, received {type(questions).__name__}")
    for q in questions:
        ok = (isinstance(q, dict) and isinstance(q.get("question"), str) and isinstance(q.get("answer"), str)
              and isinstance(q.get("distractors"), list) and all(isinstance(d, str) for d in q["distractors"])
              and q.get("difficulty", "medium") in DIFFICULTIES)
        if not ok:
            raise TaskConfigError(f"{where}: expected {{question: str, answer: str, distractors: [str], "
                                  f"difficulty?: {'|'.join(DIFFICULTIES)}}}, received {q!r}")
    return questions


def vocabulary(screens: list[Screen]) -> dict[str, list[str]]:
    """Names seen across all screens: distractors that are real labels of the app."""
    words: dict[str, set[str]] = {"heading": set(), "button": set(), "value": set()}
    for screen in screens:
        for element in screen.elements:
            role, name, value = element.get("role"), (element.get("name") or "").strip(), element.get("value") or ""
            if re.search(r"[^\W\d_]", name) and len(name) <= MAX_VALUE_CHARS:  # a word, not a page number
                if role == "heading":
                    words["heading"].add(name)
                elif role in ("button", "link"):
                    words["button"].add(name)
            if value and len(value) <= MAX_VALUE_CHARS and "\n" not in value:
                words["value"].add(value)
    return {key: sorted(values) for key, values in words.items()}


def write_sample(screens: list[Screen], out: Path, rng: random.Random, targets_per_screen: int) -> dict[str, int]:
    """Write the official layout under ``out/MMBench-GUI``; returns counts."""
    folder = out / "MMBench-GUI"
    if folder.exists():
        if not (folder / "L1_annotations.json").exists():
            raise FileExistsError(f"{folder} exists and is not an MMBench-GUI sample; choose another --out")
        shutil.rmtree(folder)
    images = folder / "offline_images" / PLATFORM
    images.mkdir(parents=True)
    words = vocabulary(screens)
    l1: list[dict[str, Any]] = []
    l2: list[dict[str, Any]] = []
    for number, screen in enumerate(screens):
        name = f"{number:03d}_{re.sub(r'[^a-z0-9]+', '-', screen.app_name.lower()).strip('-') or 'web'}.png"
        Image.fromarray(screen.screenshot).save(images / name, optimize=True)
        height, width = screen.screenshot.shape[:2]
        meta = {"image_size": [width, height], "platform": PLATFORM, "app_name": screen.app_name}
        groups = page_questions(screen.elements, words, rng)
        for q in screen.task_questions:
            group = question_group(q["question"], q["answer"], q["distractors"], q.get("difficulty", "medium"),
                                   q.get("explanation", ""), rng)
            if group is not None:
                groups.append(group)
        if groups:
            l1.append({"index": number, "image_path": name, **meta, "groups": groups})
        for target in grounding_targets(screen.elements, rng, targets_per_screen):
            x, y, w, h = target["element"]["bbox"]
            box = [x, y, x + w, y + h]
            if rng.random() < 0.5:
                box = [round(v / size, 4) for v, size in zip(box, (width, height, width, height))]
            l2.append({"index": len(l2), "image_path": name, "instruction": target["instruction"], "bbox": box,
                       **meta, "data_type": target["data_type"], "grounding_type": target["grounding_type"]})
    for level, records in (("L1", l1), ("L2", l2)):
        (folder / f"{level}_annotations.json").write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n",
                                                           encoding="utf-8")
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return {"screens": len(screens), "l1_questions": sum(len(r["groups"]) for r in l1), "l2_targets": len(l2),
            "bytes": size}


def generate(out: Path, *, env_id: str = DEFAULT_ENV, seed: int = 0, screens: int = 12, max_steps: int = 8,
             targets_per_screen: int = 6, env_kwargs: dict[str, Any] | None = None) -> dict[str, int]:
    """Capture `screens` screens from `env_id` and write the sample under `out`."""
    import gymnasium as gym

    import gui_gym  # noqa: F401  registers the GUI/* ids this generator plays

    if screens < 1 or max_steps < 0 or targets_per_screen < 0:
        raise ValueError(f"expected screens >= 1, max_steps >= 0, targets_per_screen >= 0, received "
                         f"{screens}, {max_steps}, {targets_per_screen}")
    rng = random.Random(seed)
    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        captured = capture(env, rng, screens, max_steps)
    finally:
        env.close()
    return write_sample(captured, Path(out), rng, targets_per_screen)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gui_gym.benchmarks.samples.mmbench",
                                     description="Generate an MMBench-GUI L1/L2 sample from a live browser env.")
    parser.add_argument("--seed", type=int, default=0, help="seed of everything drawn (default 0)")
    parser.add_argument("--out", type=Path, required=True, help="folder to write MMBench-GUI/ into")
    parser.add_argument("--env", default=DEFAULT_ENV, help=f"browser env id (default {DEFAULT_ENV})")
    parser.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="env kwarg, value as JSON or a plain string (repeatable)")
    parser.add_argument("--screens", type=int, default=12, help="screenshots to take (default 12)")
    parser.add_argument("--max-steps", type=int, default=8, help="most oracle steps before a screenshot (default 8)")
    parser.add_argument("--targets-per-screen", type=int, default=6, help="L2 targets per screenshot (default 6)")
    args = parser.parse_args(argv)
    try:
        env_kwargs = dict(parse_kwarg(text) for text in args.env_arg)
    except ValueError as exc:
        parser.error(f"--env-arg: {exc}")
    counts = generate(args.out, env_id=args.env, seed=args.seed, screens=args.screens, max_steps=args.max_steps,
                      targets_per_screen=args.targets_per_screen, env_kwargs=env_kwargs)
    print(f"wrote {args.out / 'MMBench-GUI'}: {counts['screens']} screens, {counts['l1_questions']} L1 questions, "
          f"{counts['l2_targets']} L2 targets, {counts['bytes'] / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
