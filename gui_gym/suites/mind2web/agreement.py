"""How a judge's verdicts agree with ground truth (the env's own success check in local mode,
or human labels): accuracy, precision and recall, with success as the positive class.

Judge errors are no verdict and are left out by the caller, as are episodes whose ground truth
is unknown; `Agreement.n` says how many pairs the numbers rest on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable


@dataclass(frozen=True)
class Agreement:
    """How a judge's verdicts agree with ground truth; success is the positive class."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def accuracy(self) -> float | None:
        return (self.tp + self.tn) / self.n if self.n else None

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn,
                "accuracy": self.accuracy, "precision": self.precision, "recall": self.recall}

    def describe(self) -> str:
        def pct(value: float | None) -> str:
            return "-" if value is None else f"{100 * value:.1f}%"
        return (f"accuracy {pct(self.accuracy)}  precision {pct(self.precision)}  recall {pct(self.recall)}  "
                f"(n={self.n}: tp {self.tp}, fp {self.fp}, fn {self.fn}, tn {self.tn})")


def agreement(pairs: Iterable[tuple[bool, bool]]) -> Agreement:
    """Agreement over (judged success, true success) pairs."""
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for judged, truth in pairs:
        counts[("t" if judged == truth else "f") + ("p" if judged else "n")] += 1
    return Agreement(**counts)


def agreement_of(rows: Iterable[dict[str, Any]]) -> Agreement:
    """Agreement over judged episodes ``{"status": "success"|"failure"|"error", "ground_truth":
    bool | None}``, leaving out judge errors and episodes whose ground truth is unknown."""
    return agreement((row["status"] == "success", row["ground_truth"]) for row in rows
                     if row["status"] != "error" and row["ground_truth"] is not None)
