"""Draw a training run's branched groups as trees: one self-contained HTML page.

Each group (``branched_groups.jsonl`` in the run folder, written by the trainers' loop when
`GRPOConfig.branching` is on) is a tree: the G whole episodes start at the task's first
screen, one row of steps each; the parent's row branches at the snapshot step, and the G
continuations hang from that node, one row each, starting where their prefix ended. A step is
a dot (hover: the action); an episode's end is green when it succeeded, red when not, with
its score.

    python -m gui_gym.benchmarks.learning.group_tree RUN_DIR        # writes RUN_DIR/branched_groups.html
"""

from __future__ import annotations

import argparse
import html
from pathlib import Path
from typing import Any

from gui_gym.records import read_jsonl

STEP_PX, ROW_PX, MARGIN_PX = 34, 22, 40


def load_groups(run_dir: str | Path) -> list[dict[str, Any]]:
    path = Path(run_dir) / "branched_groups.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: the run wrote no branched group (was branching on?)")
    return read_jsonl(path)


def tree_svg(group: dict[str, Any]) -> str:
    """One group as an SVG tree (see the module docstring)."""
    episodes, continuations = group["episodes"], group["continuations"]
    branch_row, start = group["parent"], group["from_step"]
    rows = [(0, episode, f"episode {i}") for i, episode in enumerate(episodes)]
    rows[branch_row + 1:branch_row + 1] = [(start, c, f"continuation {j}") for j, c in enumerate(continuations)]
    longest = max(offset + c["steps"] for offset, c, _ in rows)
    width, height = MARGIN_PX * 2 + 120 + STEP_PX * (longest + 1), MARGIN_PX + ROW_PX * len(rows)
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' font-size='11'>"]
    root_y = MARGIN_PX // 2 + ROW_PX * branch_row
    branch_x = 120 + STEP_PX * start
    for index, (offset, episode, label) in enumerate(rows):
        y = MARGIN_PX // 2 + ROW_PX * index
        is_continuation = label.startswith("continuation")
        x0 = 120 + STEP_PX * offset
        if is_continuation:  # hangs from the branch node on the parent's row
            parts.append(f"<path d='M{branch_x},{root_y} C{branch_x + 12},{root_y} {x0 - 12},{y} {x0 + 12},{y}' "
                         "fill='none' stroke='#7a5af8' stroke-width='1.5'/>")
        parts.append(f"<text x='4' y='{y + 4}' fill='{'#7a5af8' if is_continuation else '#333'}'>"
                     f"{html.escape(label)}</text>")
        x_end = x0 + STEP_PX * episode["steps"]
        parts.append(f"<line x1='{x0}' y1='{y}' x2='{x_end}' y2='{y}' stroke='#bbb'/>")
        for step, action in enumerate(episode["actions"], start=offset + 1):
            x = 120 + STEP_PX * step
            parts.append(f"<circle cx='{x}' cy='{y}' r='4' fill='#9aa'><title>step {step}: "
                         f"{html.escape(action)}</title></circle>")
        colour = "#1a7f37" if episode["success"] else "#cf222e"
        parts.append(f"<text x='{x_end + 10}' y='{y + 4}' fill='{colour}'>{episode['score']:.2f}</text>")
    parts.append(f"<circle cx='{branch_x}' cy='{root_y}' r='6' fill='none' stroke='#7a5af8' stroke-width='2'>"
                 f"<title>snapshot after step {start}: {group['milestones']} milestone(s)</title></circle>")
    parts.append("</svg>")
    return "".join(parts)


def render(groups: list[dict[str, Any]], title: str = "branched groups") -> str:
    """The page: one section per group, its facts and its tree."""
    sections = []
    for group in groups:
        scores = [c["score"] for c in group["continuations"]]
        facts = (f"iteration {group['iteration']} &middot; {html.escape(group['task_id'])} (seed {group['seed']}) "
                 f"&middot; branched from episode {group['parent']} after step {group['from_step']} "
                 f"({group['milestones']} milestone(s)) &middot; continuations' mean score "
                 f"{sum(scores) / max(1, len(scores)):.2f}")
        sections.append(f"<section><h2>{facts}</h2>{tree_svg(group)}</section>")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>"
            "body{font-family:sans-serif;margin:24px} h2{font-size:14px;font-weight:600} section{margin-bottom:24px}"
            f"</style></head><body><h1>{html.escape(title)}</h1>{''.join(sections) or '<p>no branched group</p>'}"
            "</body></html>")


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    args = parser.parse_args(argv)
    out = Path(args.run_dir) / "branched_groups.html"
    out.write_text(render(load_groups(args.run_dir), f"branched groups of {Path(args.run_dir).name}"))
    print(out)
    return out


if __name__ == "__main__":
    main()
