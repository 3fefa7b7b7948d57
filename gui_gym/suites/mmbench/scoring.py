"""MMBench-GUI's official breakdowns over finished episodes, as numbers and as tables.

Input: one dict per episode with ``task_id``, ``score`` (1 hit, 0 miss, None when the episode
never finished, e.g. an infrastructure error: left out and counted) and the task's
`describe` facts: ``level`` (L1/L2), ``platform``, and ``difficulty`` + ``options_num`` (L1)
or ``data_type`` + ``grounding_type`` (L2); an ``action_error`` marks output that did not
parse (the official "Error format" count).

- L1: accuracy per difficulty x platform, each difficulty's level score (sample-weighted over
  platforms), and the options-weighted variant (the official ``L1_USE_WEIGHTED``: a hit on a
  question with n options counts (n-1)/n, normalized by the best possible). A platform with no
  question of a difficulty is left out of that difficulty; with ``answers="official"`` it is
  kept as the official code keeps it: score NaN on 0 questions, which makes that difficulty's
  level score NaN too.
- L2: accuracy per grounding type x platform, icon / text / total, basic and advanced
  accuracy sample-weighted over platforms, headline = their mean. Sets without grounding
  types (ScreenSpot) report one group, ``all``, and its accuracy is the headline.

Structured results keep the official score files' keys, so they compare line by line.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Iterable

from gui_gym.suites.mmbench.answers import ANSWER_MODES
from gui_gym.suites.mmbench.data import DIFFICULTIES, GROUNDING_TYPES, PLATFORMS

ALL = "all"
_LEVEL_KEYS = ("level_score", "level_sample_num")


def _level(record: dict[str, Any]) -> str | None:
    if record.get("level") in ("L1", "L2"):
        return record["level"]
    if "difficulty" in record:
        return "L1"
    return "L2" if "data_type" in record else None


def _ordered(values: Iterable[str], preferred: tuple[str, ...]) -> list[str]:
    values = set(values)
    return [v for v in preferred if v in values] + sorted(values - set(preferred))


def _finished(records: list[dict[str, Any]], level: str) -> list[dict[str, Any]]:
    return [r for r in records if _level(r) == level and r.get("score") is not None]


def l1_scores(records: list[dict[str, Any]], weighted: bool = False, answers: str = "meant") -> dict[str, Any]:
    """The official L1 score dict: ``{difficulty: {platform: {score, sample_num, ...},
    level_score, level_sample_num}, total_sample_num}``; scores are fractions. With
    ``answers="official"`` every platform of the records appears under every difficulty, as
    in the official ``level1_calculate_scores_*``: an empty one scores NaN (numpy's mean of
    nothing), and so does its difficulty's level score."""
    if answers not in ANSWER_MODES:
        raise ValueError(f"answers must be one of {ANSWER_MODES}, received {answers!r}")
    cells: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    finished = _finished(records, "L1")
    for record in finished:
        cells[record["difficulty"]][record["platform"]].append(record)
    everywhere = _ordered({r["platform"] for r in finished}, PLATFORMS)
    result: dict[str, Any] = {}
    for difficulty in _ordered(cells, DIFFICULTIES):
        level: dict[str, Any] = {}
        platforms = everywhere if answers == "official" else _ordered(cells[difficulty], PLATFORMS)
        for platform in platforms:
            level[platform] = _l1_cell(cells[difficulty].get(platform, []), weighted)
        level["level_sample_num"] = sum(c["sample_num"] for c in level.values())
        level["level_score"] = sum(level[p]["score"] * level[p]["sample_num"] for p in platforms) / level["level_sample_num"]
        result[difficulty] = level
    result["total_sample_num"] = sum(result[d]["level_sample_num"] for d in result)
    return result


def _l1_cell(rows: list[dict[str, Any]], weighted: bool) -> dict[str, Any]:
    """One difficulty x platform cell; NaN scores for no rows, as numpy's mean of nothing."""
    def mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else math.nan

    hits = [float(r["score"] >= 1.0) for r in rows]
    cell: dict[str, Any] = {"score": mean(hits), "sample_num": len(rows)}
    if weighted:
        factors = [(r["options_num"] - 1) / r["options_num"] for r in rows]
        cell["score_weighted"] = mean([h * f for h, f in zip(hits, factors)])
        cell["score_base"] = mean(factors)
        cell["score"] = cell["score_weighted"] / cell["score_base"] if rows else math.nan
    return cell


def l2_scores(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The official L2 score dict: ``Average accuracy``, ``Basic accuracy``, ``Advanced
    accuracy`` and ``{grounding_type: {platform: {Total num, Icon accuracy, ...}}}``; in %."""
    cells: dict[str, dict[str, dict[str, list[int]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for record in _finished(records, "L2"):
        outcome = 1 if record["score"] >= 1.0 else (-1 if record.get("action_error") else 0)
        cells[record.get("grounding_type") or ALL][record["platform"]][record["data_type"]].append(outcome)
    details: dict[str, Any] = {}
    summary: dict[str, Any] = {}
    for gtype in _ordered(cells, GROUNDING_TYPES + (ALL,)):
        details[gtype] = {}
        for platform in _ordered(cells[gtype], PLATFORMS):
            icon, text = cells[gtype][platform]["icon"], cells[gtype][platform]["text"]
            outcomes = icon + text
            details[gtype][platform] = {
                "Total num": len(outcomes), "Icon num": len(icon), "Text num": len(text),
                "Total accuracy": _percent(outcomes), "Icon accuracy": _percent(icon),
                "Text accuracy": _percent(text), "Correct num": outcomes.count(1),
                "Wrong num": outcomes.count(0), "Error format num": outcomes.count(-1),
            }
        platforms = details[gtype].values()
        total = sum(p["Total num"] for p in platforms)
        summary[f"{gtype.title()} accuracy"] = sum(p["Total accuracy"] * p["Total num"] for p in platforms) / total
    headline = sum(summary.values()) / len(summary) if summary else None
    return {"Average accuracy": headline, **summary, **details}


def _percent(outcomes: list[int]) -> float | None:
    return outcomes.count(1) / len(outcomes) * 100 if outcomes else None


def breakdown(results: list[dict[str, Any]], answers: str = "meant") -> dict[str, Any]:
    """Structured breakdowns: ``{"L1": {"answers", "normal", "weighted"}, "L2": ...,
    "skipped": n}`` for the levels present in `results`; `answers` is how L1 answers were read."""
    out: dict[str, Any] = {}
    if _finished(results, "L1"):
        out["L1"] = {"answers": answers, "normal": l1_scores(results, answers=answers),
                     "weighted": l1_scores(results, weighted=True, answers=answers)}
    if _finished(results, "L2"):
        out["L2"] = l2_scores(results)
    out["skipped"] = sum(1 for r in results if _level(r) is not None and r.get("score") is None)
    return out


ANSWER_NOTES = {
    "meant": "answers read: meant (the letter the answer carries, e.g. the content of UI-TARS finished(...))",
    "official": "answers read: official (MMBench-GUI's parser over the whole output, quirks and NaN cells included)",
}


def breakdown_tables(results: list[dict[str, Any]], answers: str = "meant") -> str:
    """The official breakdown tables as text, for the levels present in `results`; the L1
    tables say how answers were read."""
    scores = breakdown(results, answers)
    sections = []
    if "L1" in scores:
        sections.append(_l1_table(scores["L1"]["normal"], "MMBench-GUI L1 (content understanding): accuracy %, "
                                  f"(questions)\n{ANSWER_NOTES[answers]}"))
        sections.append(_l1_table(scores["L1"]["weighted"], "L1 options-weighted (official L1_USE_WEIGHTED): accuracy %"))
    if "L2" in scores:
        sections.append(_l2_table(scores["L2"]))
    if scores["skipped"]:
        sections.append(f"{scores['skipped']} episode(s) without a score (not finished) are left out.")
    return "\n\n".join(sections) if sections else "no MMBench-GUI episodes to report"


def _l1_table(scores: dict[str, Any], title: str) -> str:
    difficulties = [d for d in scores if d != "total_sample_num"]
    platforms = _ordered({p for d in difficulties for p in scores[d] if p not in _LEVEL_KEYS}, PLATFORMS)
    rows = [["difficulty", *platforms, "level score"]]
    for difficulty in difficulties:
        level = scores[difficulty]
        cells = [_cell(level[p]["score"] * 100, level[p]["sample_num"]) if p in level else "-" for p in platforms]
        rows.append([difficulty, *cells, _cell(level["level_score"] * 100, level["level_sample_num"])])
    return f"{title}\n{_render(rows)}"


def _l2_table(scores: dict[str, Any]) -> str:
    rows = [["grounding", "platform", "icon", "text", "total", "format errors"]]
    for gtype, platforms in scores.items():
        if not isinstance(platforms, dict):
            continue
        for platform, cell in platforms.items():
            rows.append([gtype, platform, _cell(cell["Icon accuracy"], cell["Icon num"]),
                         _cell(cell["Text accuracy"], cell["Text num"]),
                         _cell(cell["Total accuracy"], cell["Total num"]), str(cell["Error format num"])])
    summary = " | ".join(f"{key} {value:.1f}" for key, value in scores.items()
                         if not isinstance(value, dict) and value is not None)
    return f"MMBench-GUI L2 (element grounding): accuracy %, (targets)\n{_render(rows)}\n{summary}"


def _cell(value: float | None, count: int) -> str:
    if value is None:
        return "-"
    return f"NaN ({count})" if math.isnan(value) else f"{value:.1f} ({count})"


def _render(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
