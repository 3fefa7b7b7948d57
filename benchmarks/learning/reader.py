"""A judge for TextWeb that is not the oracle: it reads an episode as the agent saw it.

PAGE's judged arms of the learning benchmark need a judge that knows nothing the agent did not
see. `ReaderJudge` is a rule-based stand-in for an LVLM judge (this machine has no chat model):
after reset and after every step it keeps the page the agent was shown, the accessibility
tree's text (`gui_gym.a11y_text.parse_elements` of ``obs["a11y_tree"]``; never the env's stage,
milestones or URL), and it reads the episode from those pages and the agent's actions alone:

- a click on a page's element is *accepted* when the next page is not TextWeb's error page
  (the page with only "Back" and "Help"), and a *near miss* when it is;
- its criteria come from successful episodes through the project's own extraction
  (`gui_gym.judges.criteria.extract_criteria`: propose from one success, refine with the next
  until stable): one criterion per accepted click, in order, phrased with the instruction's
  values where the instruction names the element ("click the link that request 1 of the
  instruction names") and with the element's name where it does not ("click the tab
  \"Filters\"");
- it marks a criterion met when an accepted click matches it, in order (the criteria are
  ordered states), and segments the episode at those clicks (PAGE's subtask spans);
- each round flips each mark with probability `flip_prob`, drawn from the round's seed and the
  episode's actions (`gui_gym.benchmarks.learning.judging.round_draws`): a judge sampled at a temperature above
  0, whose k rounds differ and are aggregated, independently for every episode.

`ReaderJudge(systematic=True)` adds errors that do not average out over rounds: it never
credits a criterion about an element the instruction does not name (the template's hidden
conventions: a judge that cannot check what the task never states), and it credits a near
miss on the page of the first criterion not met (a wrong element clicked where the right one
was due) as met.

Without flips and systematic errors the reader's marks equal the oracle's milestones on
TextWeb wherever the clicked element's name decides a criterion, which is everywhere: the error
page tells right from wrong clicks, and on a deferred stage, where the next page looks the same
either way, the extracted criterion names the element the successes clicked, which the reader
checks. It holds the oracle's information, read from the pages and the actions; what it adds
over `NoisyOracleJudge` is the path (criteria extracted from trajectories, marks and spans read
from observations), its noise and its biases. A judge that reads the pages without the actions
is misled on deferred stages (`gui_gym.benchmarks.learning.learned_judge`);
`gui_gym.benchmarks.learning.judging.agreement` measures each against the env's truth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import gymnasium as gym

from gui_gym.a11y_text import parse_elements
from gui_gym.benchmarks.learning.judging import round_draws
from gui_gym.errors import JudgeError
from gui_gym.judges.criteria_store import CriteriaStore
from gui_gym.judges.trajectory import Subtask
from gui_gym.models.chat import SharedOnCopy
from gui_gym.records import Trajectory

ERROR_PAGE = ("Back", "Help")
"""The element names of TextWeb's error page, as the agent sees them."""
NAMED = re.compile(r'^click the (?P<role>\S+) that request (?P<request>\d+) of the instruction names$')
FIXED = re.compile(r'^click the (?P<role>\S+) "(?P<name>.*)"$')


@dataclass(frozen=True)
class Page:
    """One page as the agent saw it: its elements' roles and names, in order."""

    roles: tuple[str, ...]
    names: tuple[str, ...]

    @property
    def is_error(self) -> bool:
        return self.names == ERROR_PAGE


@dataclass(frozen=True)
class Click:
    """A click the reader saw: at `step`, on element `name` (`role`), accepted or a near miss."""

    step: int
    role: str
    name: str
    accepted: bool


def requests(instruction: str) -> list[str]:
    """The instruction's requests, in order ("Open Billing, select Keiko Fischer, then save."
    -> ["Open Billing", "select Keiko Fischer", "then save."])."""
    return [part.strip() for part in instruction.split(",") if part.strip()]


class ReaderJudge(SharedOnCopy):
    """Judges TextWeb episodes from the pages the agent saw and its actions (the module's rules).

    Args:
        flip_prob: chance that one round's mark of one criterion is flipped.
        seed: with the round's seed, draws the flips.
        systematic: also the systematic errors (misses unnamed elements, credits near misses).
        store: the extracted criteria, which `segment` cuts the episode by (not needed to
            extract or to mark).
    """

    def __init__(self, flip_prob: float = 0.0, seed: int = 0, systematic: bool = False,
                 store: CriteriaStore | None = None):
        if not 0.0 <= flip_prob <= 1.0:
            raise ValueError(f"flip_prob must be in [0, 1], received {flip_prob}")
        self.flip_prob, self.seed, self.systematic = float(flip_prob), int(seed), bool(systematic)
        self.store = store
        self.identity = f"textweb-reader:p={flip_prob:g}:seed={seed}" + (":systematic" if systematic else "")

    # ---- what the reader sees ------------------------------------------------------------------

    def probe(self, env: gym.Env) -> Page:
        """The page the agent is shown now (the observation's a11y text, parsed back)."""
        elements = parse_elements(env.unwrapped.observation()["a11y_tree"])
        return Page(tuple(e.role for e in elements), tuple(e.name for e in elements))

    def own_criteria(self, trajectory: Trajectory) -> None:
        return None  # from the criteria store, extracted by `propose_criteria`

    def clicks(self, trajectory: Trajectory) -> list[Click]:
        """Every click on a non-error page, accepted or not, read from the pages."""
        pages = _pages(trajectory)
        out = []
        for step, action in enumerate(s.parsed_action for s in trajectory.steps):
            kind, element = _click_target(action)
            page, after = pages[step], pages[step + 1]
            if kind != "click" or element is None or page.is_error or not 0 <= element < len(page.names):
                continue
            out.append(Click(step, page.roles[element], page.names[element], not after.is_error))
        return out

    # ---- criteria extraction (`gui_gym.judges.criteria.extract_criteria`) -----------------------

    def propose_criteria(self, trajectory: Trajectory, previous: Sequence[str] | None, *,
                         seed: int | None = None) -> list[str]:
        """The accepted clicks of this successful trajectory as criteria; `previous` kept where
        this trajectory confirms it (same length and every criterion met here), else replaced
        by this trajectory's reading (it contradicts them)."""
        if not trajectory.success:
            raise JudgeError("criteria are extracted from successful trajectories; this one failed")
        asked = requests(trajectory.instruction)
        proposed = []
        for click in (c for c in self.clicks(trajectory) if c.accepted):
            request = next((i for i, text in enumerate(asked, 1) if click.name in text), None)
            proposed.append(f"click the {click.role} that request {request} of the instruction names" if request
                            else f'click the {click.role} "{click.name}"')
        if previous and len(previous) == len(proposed) and all(self._matches(trajectory, previous)):
            return list(previous)
        return proposed

    # ---- marks and spans -----------------------------------------------------------------------

    def mark(self, trajectory: Trajectory, criteria: Sequence[str], *, seed: int | None = None) -> list[bool]:
        marks = self._matches(trajectory, criteria)
        if self.systematic:
            marks = self._biased(trajectory, criteria, marks)
        flips = round_draws(self.seed, seed, trajectory, len(marks)) < self.flip_prob
        return [mark != bool(flip) for mark, flip in zip(marks, flips)]

    def segment(self, trajectory: Trajectory, *, seed: int | None = None) -> list[Subtask]:
        """Spans end at the click that met each criterion (for the systematic reader, also at a
        credited near miss); the first criterion not reached opens the last span; each span's
        completion is this round's mark of its criterion. The spans are the criteria of the
        task in `store` (those `ProgressReward` marks)."""
        criteria = self.store.get(trajectory.task_id) if self.store is not None else None
        if not criteria:
            raise JudgeError(f"the reader segments by its task's criteria; its store has none for {trajectory.task_id!r}")
        at = self._match_steps(trajectory, criteria)
        marks = self.mark(trajectory, criteria, seed=seed)
        last = len(trajectory) - 1
        spans, start = [], 0
        for criterion, step, done in zip(criteria, at, marks):
            if step is None or step < start:
                if start <= last:
                    spans.append(Subtask(criterion, start, last, False))
                break
            spans.append(Subtask(criterion, start, step, done))
            start = step + 1
        else:
            if spans and start <= last:
                spans[-1] = Subtask(spans[-1].description, spans[-1].start, last, spans[-1].completed)
        if not spans and last >= 0:
            spans.append(Subtask(trajectory.instruction, 0, last, bool(trajectory.success)))
        return spans

    def _matches(self, trajectory: Trajectory, criteria: Sequence[str]) -> list[bool]:
        return [step is not None for step in self._match_steps(trajectory, criteria, accepted_only=True)]

    def _match_steps(self, trajectory: Trajectory, criteria: Sequence[str],
                     accepted_only: bool = False) -> list[int | None]:
        """Per criterion, the step of the accepted click that met it, in order (None: not met);
        the systematic reader also takes a near miss on the first criterion not met."""
        asked = requests(trajectory.instruction)
        clicks = self.clicks(trajectory)
        out: list[int | None] = []
        at = 0  # the next click to look at: criteria are met in order
        for criterion in criteria:
            found = next((i for i in range(at, len(clicks))
                          if clicks[i].accepted and _fits(criterion, clicks[i], asked)), None)
            if found is None:
                if self.systematic and not accepted_only:
                    near = next((c.step for c in clicks[at:] if not c.accepted), None)
                    out.append(near)
                    out += [None] * (len(criteria) - len(out))
                    return out
                out += [None] * (len(criteria) - len(out))
                return out
            out.append(clicks[found].step)
            at = found + 1
        return out

    def _biased(self, trajectory: Trajectory, criteria: Sequence[str], marks: list[bool]) -> list[bool]:
        """Misses every criterion about an element the instruction does not name (all but the
        last, the save button); credits a near miss where the first unmet criterion was due."""
        out = list(marks)
        first_unmet = next((k for k, m in enumerate(marks) if not m), None)
        if first_unmet is not None:
            previous = self._match_steps(trajectory, criteria[:first_unmet], accepted_only=True)
            after = previous[-1] if previous and previous[-1] is not None else -1
            if any(not c.accepted and c.step > after for c in self.clicks(trajectory)):
                out[first_unmet] = True
        for k, criterion in enumerate(criteria[:-1]):
            if FIXED.match(criterion):
                out[k] = False
        return out


def _fits(criterion: str, click: Click, asked: Sequence[str]) -> bool:
    named = NAMED.match(criterion)
    if named:
        request = int(named["request"])
        return (click.role == named["role"] and 1 <= request <= len(asked)
                and click.name in asked[request - 1])
    fixed = FIXED.match(criterion)
    return bool(fixed) and click.role == fixed["role"] and click.name == fixed["name"]


def _click_target(action: Any) -> tuple[str | None, int | None]:
    if action is None:
        return None, None
    if isinstance(action, dict):
        return action.get("kind"), action.get("element")
    return getattr(action, "kind", None), getattr(action, "element", None)


def _pages(trajectory: Trajectory) -> list[Page]:
    pages = [trajectory.start_probe, *(step.probe for step in trajectory.steps)]
    if not all(isinstance(page, Page) for page in pages):
        raise JudgeError("the reader needs the pages it saw (a trajectory recorded through its wrappers)")
    return pages
