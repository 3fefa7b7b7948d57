"""`gui-bench report`: the HTML report of a results folder.

The page holds the summary table, a row per episode (filtered by outcome and domain, searched
by task id, instruction and error), and a trajectory viewer: each step shows the screenshot the
agent acted on with its action marked on it in screen pixels (click points, drag and scroll
arrows) and told in words under it (typed text, keys, answers), then the final screen. Beside
the list the viewer stays in view while the list scrolls; a click on the screenshot shows it at
full size. Where the run recorded them, a step also shows the accessibility tree the agent read
and the prompt its model was sent (text, with each image as its size), folded. The data is
inside the page as JSON; the screenshots are, by default (``images="link"``), the episodes' own
files, referenced by paths relative to the report, so the report adds a few hundred KB to the
folder instead of a second copy of every screenshot (it is opened from the folder, or with the
folder). ``images="webp"`` embeds them as data URLs instead (re-encoded as WebP, which every
current browser shows), and ``"png"`` as stored: one self-contained file to mail or attach to
an issue. Agent output is placed with ``textContent`` only, so a model that writes HTML cannot
inject any into the report.
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
from pathlib import Path
from typing import Any

from gui_gym.benchmarks.harness.results import TASKS_DIR, ResultsStore, summarize
from gui_gym.errors import HarnessError
from gui_gym.records import TRAJECTORY_FILE, EpisodeResult, atomic_write, json_safe, read_trajectory
from gui_gym.records.jsonl import escape_line_breaks

TEMPLATE = Path(__file__).with_name("report_template.html")
REPORT_FILE = "report.html"
IMAGE_MODES = ("link", "webp", "png")
"""How screenshots reach the page: referenced (the default), or embedded as WebP or as stored."""
RECORD_FIELDS = ("step", "action", "parsed_action", "action_error", "reward", "thought", "response", "url", "timings",
                 "a11y_tree", "prompt")
"""What the viewer shows of a step's record; ``a11y_tree`` (the observation's, when the env gave one)
and ``prompt`` (the messages the agent sent its model) only where they were recorded."""


def _image(path: Path, base: Path, mode: str) -> dict[str, Any] | None:
    """`path` for the page: its size and its ``src``, a path relative to `base` (the
    report's folder) or a data URL."""
    from PIL import Image

    if not path.is_file():
        return None
    with Image.open(path) as picture:
        width, height = picture.size
        if mode == "link":
            src = Path(os.path.relpath(path, base)).as_posix()
        elif mode == "png" or (mode == "webp" and picture.format == "WEBP"):  # embedded as stored
            mime = f"image/{picture.format.lower()}"
            src = f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")
        else:
            buffer = io.BytesIO()
            picture.convert("RGB").save(buffer, format="WEBP", quality=80)
            src = "data:image/webp;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
    return {"src": src, "width": width, "height": height}


def _episode(folder: Path, base: Path, result: EpisodeResult | None, job: dict[str, Any], mode: str) -> dict[str, Any]:
    records = read_trajectory(folder)
    by_step: list[dict[str, Any] | None] = [None] * (max((r.get("step", 0) for r in records), default=-1) + 1)
    frames: list[dict[str, Any] | None] = [None] * len(by_step)
    for record in records:
        step = record.get("step", 0)
        by_step[step] = {k: record.get(k) for k in RECORD_FIELDS}
        shot = record.get("screenshot_file")
        if shot:
            frames[step] = _image(folder / shot, base, mode)
            if frames[step] is not None:
                frames[step]["url"] = record.get("url")
    views = [{"step": step, "frame": step - 1} for step in range(1, len(by_step)) if by_step[step] is not None]
    if frames:
        views.append({"step": None, "frame": len(frames) - 1})
    meta = {**(job.get("meta") or {}), **(result.meta if result else {})}
    instruction = (result.instruction if result else None) or (records[0].get("instruction") if records else None)
    steps = result.steps if result else (len(by_step) - 1 if by_step else None)
    return {
        "key": job.get("key") or folder.name, "task_id": result.task_id if result else job.get("task_id") or folder.name,
        "seed": result.seed if result else job.get("seed"), "outcome": result.outcome if result else "pending",
        "score": result.score if result else None, "steps": steps, "error": result.error if result else None,
        "instruction": instruction, "final_answer": result.final_answer if result else None,
        "domain": meta.get("domain") or (result.domain if result else None), "difficulty": meta.get("difficulty"),
        "time_s": result.timings.get("total_s") if result else None,
        "records": by_step, "frames": frames, "views": views,
    }


def build_report(out_dir: str | Path, *, images: str = "link", dest: str | Path | None = None,
                 summary: dict[str, Any] | None = None, store: ResultsStore | None = None) -> Path:
    """Write the HTML report of the results folder `out_dir` (to ``<out_dir>/report.html``
    unless `dest` is given) and return its path. `store`: the caller's, which has already
    said what in the folder is damaged."""
    if images not in IMAGE_MODES:
        raise HarnessError(f"images must be one of {list(IMAGE_MODES)}, received {images!r}")
    store = store or ResultsStore(out_dir)
    root = store.root
    run = store.read_run()
    if run is not None:
        jobs = run.get("jobs", [])
    elif (root / TASKS_DIR).is_dir():
        jobs = [{"key": d.name} for d in sorted((root / TASKS_DIR).iterdir()) if (d / TRAJECTORY_FILE).is_file()]
    else:
        raise HarnessError(f"{root} is not a gui-bench results folder: it has neither run.json nor {TASKS_DIR}/")
    results = {job["key"]: store.read_result(job["key"]) for job in jobs}
    summary = summary or store.read_summary() or summarize([r for r in results.values() if r], run=run)
    target = Path(dest) if dest is not None else root / REPORT_FILE
    base = target.resolve().parent
    tasks = [_episode(store.task_dir(job["key"]).resolve(), base, results[job["key"]], job, images) for job in jobs]
    title = f"gui-bench: {run.get('env_id')} / {run.get('agent')}" if run else f"gui-bench: {root.name}"
    data = json_safe({"title": title, "run": {k: v for k, v in (run or {}).items() if k != "jobs"},
                      "summary": summary, "suite_report": summary.get("suite_report"), "tasks": tasks})
    payload = escape_line_breaks(json.dumps(data, ensure_ascii=False))
    payload = payload.replace("</", "<\\/").replace("<!--", "<\\u0021--")
    page = TEMPLATE.read_text(encoding="utf-8").replace("__TITLE__", html.escape(title)).replace("__REPORT_DATA__", payload)
    atomic_write(target, page)
    return target

