"""LocalWeb task templates: one class per template, one instance per (template, seed).

A template reads the episode's *world* (every app's fresh state, built from the seed) to draw
its parameters, may `prepare` that world (e.g. put an unread mail in the inbox), and then
knows everything about its task: the instruction, the success check over the world (and the
agent's answer for information tasks), ordered milestones, an oracle that acts through the
env's own action interface, and an expert plan in plain language.

Difficulty is the length of the oracle's solution: easy 2-5 steps, medium 6-12, hard 13-30;
a test holds every template to its class over several seeds. How an answer is matched is
`answers`; the suite adapts a template to the env's `Task` (`suite.LocalWebTask`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.framework import seeded

if TYPE_CHECKING:
    import random

    from gui_gym.suites.localweb.oracle_ui import OracleUI

World = dict[str, dict[str, Any]]
"""App name -> that app's server-side state for the current episode."""

DIFFICULTY_STEPS = {"easy": (2, 5), "medium": (6, 12), "hard": (13, 30)}
DEFAULT_MAX_STEPS = {"easy": 15, "medium": 30, "hard": 50}


@dataclass(frozen=True)
class OnScreen:
    """A milestone check on what the page shows rather than on the world: a dialog open, a
    form field filled. It marks progress between two world changes (the address typed before
    the invitation exists), as an LVLM judge looking at the screen would. The oracle judge
    counts a milestone from the first step it holds, so a dialog closing again undoes nothing."""

    check: Callable[["OracleUI"], bool]


class TaskTemplate(ABC):
    """A parametric task. Subclasses set the class attributes and implement the methods; each
    app has a base of its own in its ``base.py`` that sets `app` and `initial_state`
    (`ShopTemplate`, `MailTemplate`, `CalendarTemplate`, `AdminTemplate`, `WikiTemplate`)."""

    template_id: ClassVar[str]
    """``<app>.<name>``, e.g. ``shop.add-to-cart``; the task id agents and results see."""
    app: ClassVar[str]
    difficulty: ClassVar[str]
    """easy | medium | hard, by oracle length (see DIFFICULTY_STEPS)."""
    start_path: ClassVar[str] = "/"
    answer_required: ClassVar[bool] = False
    """Information tasks: success needs the right final answer (an ``answer`` action)."""
    initial_state: ClassVar[Callable[[int], dict[str, Any]] | None] = None
    """The app's seeded state builder, for templates whose checks compare with `original()`."""

    def __init__(self, seed: int, world: World):
        self.seed = seed
        self.params: dict[str, Any] = self.sample_params(world, seeded(seed, self.template_id))
        self._original: dict[str, Any] | None = None

    @abstractmethod
    def sample_params(self, world: World, rng: "random.Random") -> dict[str, Any]:
        """Draw this instance's parameters (from the world's data where they must exist)."""

    def prepare(self, world: World) -> None:
        """Change the fresh world before the episode starts (default: nothing)."""

    def original(self) -> dict[str, Any]:
        """The app's state as the episode started, a pure function of the seed and the params,
        so an evaluator can see exactly what changed. Built once: milestone checks compare
        against it after every step. Read it, never change it."""
        if self._original is None:
            if self.initial_state is None:
                raise TypeError(f"{self.template_id} sets no initial_state, so it has no original state")
            state = self.initial_state(self.seed)
            self.prepare({self.app: state})
            self._original = state
        return self._original

    @property
    @abstractmethod
    def instruction(self) -> str: ...

    @abstractmethod
    def evaluate(self, world: World, answer: str | None) -> float:
        """Score in [0, 1] of the final world (and answer)."""

    @abstractmethod
    def milestones(self) -> list[tuple[str, Callable[[World], bool] | OnScreen]]:
        """Ordered (description, predicate on the world, or an `OnScreen` check of the page).
        The last one implies success for action tasks; reaching them in order is what the
        oracle does."""

    @abstractmethod
    def oracle(self, ui: "OracleUI") -> Iterator[Action]:
        """The solution, through `ui`, which resolves selectors on the live page."""

    @abstractmethod
    def expert_plan(self) -> list[str]:
        """The solution as a human would write it down, one step per line."""

    start_page_questions: ClassVar[bool] = False
    """Offer the app's own facts about its start page (`app_questions`) as this template's
    `sample_questions`."""

    def app_questions(self, world: World) -> list[dict[str, Any]]:
        """The app's multiple-choice facts about its start page (its template base says
        which); none by default."""
        return []

    def sample_questions(self, world: World) -> list[dict[str, Any]]:
        """Multiple-choice facts about the start page: [{question, answer, distractors}].
        Used by the MMBench-GUI sample generator; default: the app's own with
        `start_page_questions`, else none."""
        return self.app_questions(world) if self.start_page_questions else []

    @property
    def max_steps(self) -> int:
        return DEFAULT_MAX_STEPS[self.difficulty]
