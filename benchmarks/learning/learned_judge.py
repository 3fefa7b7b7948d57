"""A judge learned from data: a small model that marks PAGE's criteria from the pages the agent saw.

A real progress judge is a model, trained or prompted, whose errors come from what it reads.
`LearnedJudge` is the smallest such model that can be honest about its inputs: a logistic
regression over hashed tokens of the episode's pages, trained on labelled episodes that no
run trains or is evaluated on (`train_judge`). What it reads is what the agent was shown: each
page's URL path (``step3``, ``error``, ``rejected``) and nothing else; never the agent's
actions, the env's stage or its milestones. The labels it learns from are the milestones of
those held-apart episodes, as a reward model learns from labelled data.

Criterion k of a task is "stage k done" (the last: the save); a task has as many criteria as
its labelled episodes had milestones. The tokens of (episode, k) say where the episode's pages
stood relative to stage k: each page's place (-2..+2 stages from k, or an error or rejection
page), each move between consecutive pages, the last page, how often stage k's page was shown,
and the same tokens joined to (task, k), so the model can learn what a move means on each
stage of each task. On TextWeb a wrong click on an ordinary stage opens the error page at once,
so the pages tell right from wrong there; on a *deferred* stage (`gui_gym.benchmarks.learning.textweb.Stage.deferred`)
the next page is the same either way, and only the save's rejection, if the episode gets that
far, shows the mistake. There the judge can only learn how often such a click was right in its
training episodes: its errors fall where its inputs mislead it, and they move with the policy
(a policy that learns the stage's convention is judged by the base's rate).

Marks are drawn: each round marks criterion k met with the model's probability p_k (a judge
sampled at temperature 1; the draws as the reader's, `gui_gym.benchmarks.learning.judging.round_draws`), so k
rounds averaged (PAGE's `mean`) estimate p_k. Subtask spans
are cut where the pages first show each stage.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import gymnasium as gym
import torch

from gui_gym.benchmarks.learning.judging import round_draws
from gui_gym.errors import JudgeError
from gui_gym.judges.trajectory import Subtask
from gui_gym.models.chat import SharedOnCopy
from gui_gym.records import Trajectory

STAGE = re.compile(r"^step(\d+)$")
BUCKETS = 1 << 14


@dataclass(frozen=True)
class Seen:
    """One page as the agent was shown it, as this judge reads it: the URL's last path part."""

    path: str

    @property
    def stage(self) -> int | None:
        """The stage the page shows (None for an error or rejection page)."""
        match = STAGE.match(self.path)
        return int(match[1]) if match else None


@dataclass(frozen=True)
class Labelled:
    """A held-apart episode: its task, its pages, and per criterion whether it was met."""

    task_id: str
    pages: tuple[Seen, ...]
    labels: tuple[bool, ...]


def seen_pages(trajectory: Trajectory) -> list[Seen]:
    """The pages of a trajectory recorded through `LearnedJudge.probe` (before each step, and the last)."""
    pages = [trajectory.start_probe, *(step.probe for step in trajectory.steps)]
    if not all(isinstance(page, Seen) for page in pages):
        raise JudgeError("the learned judge reads the pages it recorded (a trajectory kept through its wrappers)")
    return pages


def tokens(task_id: str, pages: Sequence[Seen], k: int) -> list[str]:
    """What the model reads of (episode, criterion k): the module's tokens."""
    places = [_place(page, k) for page in pages]
    base = [f"at:{p}" for p in set(places)] + [f"move:{a}>{b}" for a, b in set(zip(places, places[1:]))]
    base += [f"last:{places[-1]}", f"visits:{min(3, places.count('0'))}", "bias"]
    return base + [f"{task_id}:{k}|{t}" for t in base]


def _place(page: Seen, k: int) -> str:
    if page.stage is None:
        return "rej" if page.path == "rejected" else "err"
    return f"{max(-2, min(2, page.stage - k)):+d}" if page.stage != k else "0"


class JudgeModel(torch.nn.Module):
    """Logistic regression over hashed tokens; `criteria` holds each task's criteria count."""

    def __init__(self, criteria: Mapping[str, int], buckets: int = BUCKETS):
        super().__init__()
        self.criteria = dict(criteria)
        self.buckets = buckets
        self.weights = torch.nn.EmbeddingBag(buckets, 1, mode="sum")
        torch.nn.init.zeros_(self.weights.weight)

    def encode(self, rows: Sequence[Sequence[str]]) -> tuple[torch.Tensor, torch.Tensor]:
        """Rows of tokens as the flat bucket ids and offsets `forward` takes."""
        ids = [torch.tensor([zlib.crc32(t.encode()) % self.buckets for t in row]) for row in rows]
        return torch.cat(ids), torch.tensor([0] + [len(i) for i in ids[:-1]]).cumsum(0)

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.weights(ids, offsets).squeeze(-1))

    def probabilities(self, task_id: str, pages: Sequence[Seen]) -> list[float]:
        """p(criterion k met) for each of the task's criteria."""
        count = self.criteria.get(task_id)
        if count is None:
            raise JudgeError(f"the learned judge was trained on no episode of task {task_id!r}")
        with torch.no_grad():
            return self(*self.encode([tokens(task_id, pages, k) for k in range(count)])).tolist()

    def state(self) -> dict[str, Any]:
        return {"criteria": self.criteria, "buckets": self.buckets, "weights": self.weights.weight.detach().clone()}

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> "JudgeModel":
        model = cls(state["criteria"], state["buckets"])
        model.weights.weight.data.copy_(state["weights"])
        return model


def train_judge(episodes: Iterable[Labelled], epochs: int = 300, learning_rate: float = 0.1,
                weight_decay: float = 1e-4, seed: int = 0) -> tuple[JudgeModel, list[float]]:
    """Fit the model to labelled episodes (full-batch Adam on the log-loss); returns it and
    the loss of every 50th epoch."""
    episodes = list(episodes)
    if not episodes:
        raise ValueError("train_judge needs at least one labelled episode")
    counts: dict[str, int] = {}
    for e in episodes:
        if counts.setdefault(e.task_id, len(e.labels)) != len(e.labels):
            raise ValueError(f"episodes of task {e.task_id!r} have {counts[e.task_id]} and {len(e.labels)} labels")
    torch.manual_seed(seed)
    model = JudgeModel(counts)
    rows = model.encode([tokens(e.task_id, e.pages, k) for e in episodes for k in range(len(e.labels))])
    target = torch.tensor([float(label) for e in episodes for label in e.labels])
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate, weight_decay=weight_decay)
    losses = []
    for epoch in range(epochs):
        optimizer.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy(model(*rows).clamp(1e-6, 1 - 1e-6), target)
        loss.backward()
        optimizer.step()
        if epoch % 50 == 0 or epoch == epochs - 1:
            losses.append(float(loss.detach()))
    return model, losses


class LearnedJudge(SharedOnCopy):
    """PAGE's judge from a trained `JudgeModel` (the module's rules): reads pages only, marks
    each criterion met with the model's probability per round (drawn from the round's seed)."""

    def __init__(self, model: JudgeModel, seed: int = 0):
        self.model, self.seed = model, int(seed)
        self.identity = f"textweb-learned:seed={seed}"

    def probe(self, env: gym.Env) -> Seen:
        """The page the agent is shown now: its URL's last path part."""
        return Seen(str(env.unwrapped.observation()["url"]).rstrip("/").rsplit("/", 1)[-1])

    def own_criteria(self, trajectory: Trajectory) -> list[str]:
        count = self.model.criteria.get(trajectory.task_id)
        if count is None:
            raise JudgeError(f"the learned judge was trained on no episode of task {trajectory.task_id!r}")
        return [f"stage {k + 1} of {count} done" for k in range(count)]

    def mark(self, trajectory: Trajectory, criteria: Sequence[str], *, seed: int | None = None) -> list[bool]:
        p = self.model.probabilities(trajectory.task_id, seen_pages(trajectory))
        if len(p) != len(criteria):
            raise JudgeError(f"the learned judge marks its own {len(p)} criteria, received {len(criteria)}")
        draws = round_draws(self.seed, seed, trajectory, len(p))
        return [bool(d < q) for d, q in zip(draws, p)]

    def segment(self, trajectory: Trajectory, *, seed: int | None = None) -> list[Subtask]:
        """One span per stage the pages reached, from the step on its page first shown to the
        step before the next stage's page first shown (the last span runs to the end); each
        span's completion is this round's mark of its criterion."""
        pages = seen_pages(trajectory)
        criteria = self.own_criteria(trajectory)
        marks = self.mark(trajectory, criteria, seed=seed)
        first: dict[int, int] = {}
        shown = 0
        for t, page in enumerate(pages[:-1]):  # the page before step t
            shown = page.stage if page.stage is not None else shown
            for stage in range(min(shown, len(criteria) - 1) + 1):
                first.setdefault(stage, t)
        starts = sorted(first.items())
        last = len(trajectory) - 1
        return [Subtask(criteria[stage], start, (starts[i + 1][1] - 1) if i + 1 < len(starts) else last, marks[stage])
                for i, (stage, start) in enumerate(starts) if start <= last]
