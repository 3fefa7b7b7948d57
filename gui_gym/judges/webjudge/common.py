"""What every WebJudge protocol (`webjudge`, `webjudge_official`, `webjudge_keypoints`) shares:
the trajectory a judge reads (`WebTrajectory`), the verdict it writes and reads back
(`Verdict`, `load_verdict`), the log of its calls, the screenshots as the chat models take
them (`load_image`), and the strict readers of its answers (`parse_key_points`,
`parse_screenshot_score`, `parse_status`). `WebJudge` runs the protocols on them; the
protocols' own modules import from here, not from `webjudge`, so no two of them import each
other.
"""

from __future__ import annotations

import io
import json
import re
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence, Union

import numpy as np

from gui_gym.errors import JudgeFormatError, excerpt
from gui_gym.judges.parsing import check_answer
from gui_gym.models.chat import PNG_SIGNATURE, ImageLike
from gui_gym.records import append_jsonl

VERDICT_FILE = "verdict.json"
CALLS_FILE = "calls.jsonl"
STATUSES = ("success", "failure", "error")

ImageSource = Union[ImageLike, Path]
"""A screenshot in memory (array or PNG bytes), or a file holding one (PNG, JPEG, WebP)."""


_LEAD = r"^[ \t>*#\-\d.)]*"
"""What may open a line before a field name (list marks, emphasis, quotes). Like every pattern
here it is written so that no two neighbouring parts take the same characters, and it stays
within its line: a judge's answer is read in time linear in its length."""
_KEY_POINTS_HEADER = re.compile(r"key\s*points[\s*_]*:", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:\d+\s*[.):]|[-*\u2022])\s+(.*\S)")
"""A list item, matched against a line without its trailing whitespace."""
_SCORE = re.compile(_LEAD + r"score\**\s*[:=]\s*(?:[\[(*`\"]+\s*)?(\d{1,9})(?!\d)", re.IGNORECASE | re.MULTILINE)
_REASONING = re.compile(_LEAD + r"reasoning\**\s*:\s*(.*?)(?=" + _LEAD + r"score\**\s*[:=]|\Z)",
                        re.IGNORECASE | re.MULTILINE | re.DOTALL)
_OWN_LEAD = r"^[ \t*#\-\d.)]*"
"""`_LEAD` without the quote mark: a verdict is read from the judge's own lines only."""
_STATUS = re.compile(_OWN_LEAD + r"status\**\s*:[\"'*`\s]*([A-Za-z]+)", re.IGNORECASE | re.MULTILINE)
_THOUGHTS = re.compile(_LEAD + r"thoughts\**\s*:\s*(.*?)(?=" + _LEAD + r"status\**\s*:|\Z)",
                       re.IGNORECASE | re.MULTILINE | re.DOTALL)


def _format_error(what: str, text: str) -> JudgeFormatError:
    return JudgeFormatError(f"expected {what}, received {excerpt(text)}", text)


def parse_key_points(text: str) -> list[str]:
    """The numbered (or bulleted) list after ``Key Points:``, or anywhere when there is no header."""
    check_answer(text)
    headers = list(_KEY_POINTS_HEADER.finditer(text))
    body = text[headers[-1].end():] if headers else text
    lines = (line.rstrip() for line in body.splitlines())
    points = [m.group(1).strip().strip("*").strip() for m in map(_LIST_ITEM.match, lines) if m]
    points = [p for p in points if p]
    if not points:
        raise _format_error("the key points as a numbered list after 'Key Points:'", text)
    return points


def parse_screenshot_score(text: str) -> tuple[int, str]:
    """(score 1-5, reasoning) from ``Reasoning: ...`` and ``Score: N`` lines."""
    check_answer(text)
    scores = _SCORE.findall(text)
    if not scores:
        raise _format_error("a line 'Score: <1-5>'", text)
    score = int(scores[-1])
    if not 1 <= score <= 5:
        raise _format_error(f"a score from 1 to 5, not {score}", text)
    found = _REASONING.search(text)
    reasoning = found.group(1) if found else text[:_SCORE.search(text).start()]
    return score, " ".join(reasoning.split())


def parse_status(text: str) -> tuple[str, str]:
    """(``"success"`` or ``"failure"``, the thoughts) from ``Thoughts:`` and ``Status:`` lines.

    The status is read from the judge's own lines: not from a quoted line (``> Status: ...``,
    what the judge repeats of the agent's text) nor from a code block; two different statuses
    are off-format (asked again), never the last one taken."""
    check_answer(text)
    own = _own_lines(text)
    statuses = sorted({status.lower() for status in _STATUS.findall(own)})
    if not statuses:
        raise _format_error("a line 'Status: success' or 'Status: failure'", text)
    if len(statuses) > 1:
        raise _format_error(f"one verdict, not {len(statuses)} different ones ({', '.join(statuses)})", text)
    status = statuses[0]
    if status not in ("success", "failure"):
        raise _format_error(f"the status 'success' or 'failure', not {status!r}", text)
    found = _THOUGHTS.search(own)
    return status, " ".join(found.group(1).split()) if found else ""


def _own_lines(text: str) -> str:
    """`text` without its quoted lines (``>``) and its code blocks (between lines opening with
    three backticks): what the judge says in its own voice."""
    kept, inside = [], False
    for line in text.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("```"):
            inside = not inside
        elif not inside and not stripped.startswith(">"):
            kept.append(line)
    return "\n".join(kept)


@dataclass
class WebTrajectory:
    """One web episode as the judge reads it: the task, the factual actions in order, the
    agent's final answer (kept apart from the actions), and the screenshots in order."""

    task_id: str
    task: str
    actions: list[str]
    screenshots: list[ImageSource] = field(default_factory=list)
    final_answer: str | None = None
    screenshot_names: list[str] | None = None
    """How logs and verdicts name each screenshot (file names); default ``screenshot <n>``."""

    def names(self) -> list[str]:
        if self.screenshot_names is not None:
            return list(self.screenshot_names)
        return [s.name if isinstance(s, Path) else f"screenshot {i}" for i, s in enumerate(self.screenshots)]


@dataclass
class ScreenshotScore:
    index: int
    name: str
    score: int
    reasoning: str
    kept: bool = False


@dataclass
class Verdict:
    """The judge's verdict on one episode. `status` "error" means no verdict: `error` says why."""

    task_id: str
    status: str
    key_points: list[str] = field(default_factory=list)
    screenshots: list[ScreenshotScore] = field(default_factory=list)
    thoughts: str = ""
    response: str = ""
    error: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    key_point_results: list[dict[str, Any]] = field(default_factory=list)
    """The keypoint protocol's verdict on each key point: ``{key_point, status, thoughts}``."""
    judge: str = ""
    """The identity of the chat judge that answered."""
    calls: int = 0
    elapsed_s: float = 0.0

    @property
    def success(self) -> bool | None:
        """True or False for a verdict, None for a judge error."""
        return None if self.status == "error" else self.status == "success"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "success": self.success}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Verdict":
        values = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        values["screenshots"] = [ScreenshotScore(**s) for s in data.get("screenshots") or []]
        if values.get("status") not in STATUSES:
            raise ValueError(f"expected a verdict status in {STATUSES}, received {values.get('status')!r}")
        return cls(**values)


def load_verdict(folder: str | Path) -> Verdict | None:
    """The verdict recorded in `folder`, or None when there is none (or it cannot be read)."""
    try:
        return Verdict.from_dict(json.loads((Path(folder) / VERDICT_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


class _CallLog:
    """Appends one JSON line per judge call to a file (thread-safe); counts the calls."""

    def __init__(self, path: Path | None):
        self.path = path
        self.calls = 0
        self._lock = threading.Lock()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("", encoding="utf-8")

    def record(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self.calls += 1
            if self.path is not None:
                append_jsonl(self.path, {"call": self.calls, **entry})


def load_image(source: ImageSource) -> ImageLike:
    """A screenshot as the judges take it: PNG bytes as they are, other encodings decoded."""
    data = source.read_bytes() if isinstance(source, Path) else source
    if isinstance(data, np.ndarray) or data.startswith(PNG_SIGNATURE):
        return data
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"))


def _numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))
