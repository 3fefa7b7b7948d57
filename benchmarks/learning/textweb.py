"""TextWeb: a browser-free model of LocalWeb's multi-step tasks, for the learning benchmark's
multi-seed statistics.

A LocalWeb episode costs seconds of Chromium time; the statistics of `gui_gym.benchmarks.learning.benchmark`
need tens of seeds per method, so it trains on this env instead: pages are accessibility
trees in the browser's own text form (`gui_gym.a11y_text.format_elements`), actions are the
element actions of `gui_gym.actions.Action`, so `ElementPolicy` and the trainers run on it
unchanged. A task is a chain of stages (open a section, pick a record, set a field, save),
each a page of alike elements of which one is right:

- a *named* stage: the right element's name is in the instruction ("open Billing");
- a *hidden* stage: the right element is the template's own convention, named nowhere in
  the instruction (LocalWeb's unnamed sort): a prior guesses it, RL has to learn it.

A wrong click opens an error page whose "Back" link returns to the stage, so a mistake costs
two steps of the step limit; ``done`` ends the episode. Two kinds of stage change that:

- a *deferred* stage (`Stage.deferred`) hides a mistake: a wrong click opens the next stage's
  page as the right click would (the page looks fine), and the mistake shows only at the
  save, which opens a "rejected" page (the error page's elements, another URL) whose Back
  returns to the mistaken stage. Until then nothing the agent sees tells the two apart, so a
  judge that reads the pages can be wrong; the milestones stay the truth (a stage counts only
  once every stage before it is right);
- a stage with an *alternate* (`Stage.alternate`): two of its elements are right, the first
  (what the env's expert plan names) and another, as an app's menu and toolbar both reach the
  same state: a second route to the goal.

The keyboard works as a browser's: Tab moves the focus to the next element (the tree flags it
``focused``), Enter activates the focused element as a click would, a new page has no focus;
with no focus Enter does nothing. Difficulty compounds: success needs every stage right
within the limit, and rollouts stop at different milestones. The env
reports what PAGE's oracle judge and `SubtaskAnnotation` would: ``info["progress"]`` (the
milestones reached, in order, over their number), ``info["subtasks"]`` (one span per stage,
completed or not) and ``info["subtask_of_step"]``. Templates and instances are drawn from
seeds, so the task set is fixed and reproducible.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Sequence

import gymnasium as gym

from gui_gym.a11y_text import format_elements
from gui_gym.actions import Action

POOLS = {
    "section": ["Users", "Teams", "Billing", "Invoices", "Projects", "Reports", "Security", "Orders", "Products",
                "Campaigns", "Tickets", "Calendars"],
    "person": ["Keiko Fischer", "Farid Jovanovic", "Amara Lindqvist", "Tomas Okafor", "Priya Castellano",
               "Jonas Abernathy", "Lena Moreau", "Ravi Stein", "Mia Kowalski", "Omar Duarte"],
    "team": ["Finance", "Research", "Support", "Design", "Platform", "Marketing", "Legal", "Operations"],
    "role": ["Viewer", "Editor", "Admin", "Owner", "Auditor", "Billing manager"],
    "period": ["January", "February", "March", "April", "May", "June", "July", "August"],
}
"""Named stages draw their right element and its alike distractors from a pool."""
CONVENTIONS = ["Advanced", "Details", "Permissions", "History", "Sort by price", "Show archived", "Bulk edit",
               "Export", "Preview", "Settings", "Filters", "Overview", "Activity", "Drafts", "Templates", "Schedule"]
"""Hidden stages: the template's right element and distractors come from these."""
ROLES = ("link", "button", "tab", "menuitem")
VERBS = {"section": "open {}", "person": "select {}", "team": "assign the {} team", "role": "give the {} role",
         "period": "choose {}"}


@dataclass(frozen=True)
class Stage:
    kind: str
    """A `POOLS` key (a named stage), "hidden" or "varying" (a hidden stage whose right element
    changes with the instance: only the instance's expert plan names it)."""
    role: str
    options: int
    """Elements on the stage's page, the right one included."""
    convention: tuple[str, ...] = ()
    """A hidden or varying stage's elements; a hidden stage's first is right."""
    deferred: bool = False
    """A wrong click here opens the next page as a right one would; the save reveals it."""
    alternate: bool = False
    """A hidden or varying stage whose second element is right too (another route)."""


@dataclass(frozen=True)
class Template:
    task_id: str
    stages: tuple[Stage, ...]
    save: str


def make_templates(count: int, seed: int, hidden: tuple[int, ...] = (0, 1, 2), stages: tuple[int, int] = (4, 6),
                   options: tuple[int, int] = (3, 5), conventions: Sequence[str] = CONVENTIONS,
                   hidden_kind: str = "hidden", deferred: int = 0, alternates: int = 0) -> list[Template]:
    """`count` templates drawn from `seed`: each has a number of stages in `stages` (inclusive),
    of which `hidden[i % len(hidden)]` are hidden (of `hidden_kind`: "hidden" or "varying"),
    and pages of `options` elements; hidden stages draw from `conventions` (disjoint lists keep
    pretraining's conventions from biasing the RL tasks'). The first `deferred` hidden stages
    of each template hide a mistake until the save; the first `alternates` have a second right
    element. Neither option changes the draws, so a template differs from the one drawn
    without them only in those flags."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        n = rng.randint(*stages)
        n_hidden = min(hidden[i % len(hidden)], n - 1)
        hidden_at = set(rng.sample(range(1, n), n_hidden))  # a task opens with a named section
        silent, second = set(sorted(hidden_at)[:deferred]), set(sorted(hidden_at)[:alternates])
        chain = []
        for k in range(n):
            role, m = rng.choice(ROLES), rng.randint(*options)
            if k in hidden_at:
                chain.append(Stage(hidden_kind, role, m, tuple(rng.sample(list(conventions), m)), deferred=k in silent,
                                   alternate=k in second))
            else:
                chain.append(Stage("section" if k == 0 else rng.choice(sorted(set(POOLS) - {"section"})), role, m))
        late = f"-d{len(silent)}" if silent else ""
        out.append(Template(f"textweb.s{seed}-t{i:02d}-h{n_hidden}{late}", tuple(chain),
                            rng.choice(["Save", "Apply", "Confirm"])))
    return out


class _Milestones:
    """The episode's milestones, as a suite's task gives them (`gui_gym.suites.base.Milestone`),
    so PAGE's own wrappers and `OracleJudge` (or its noisy variant) judge TextWeb as they judge
    LocalWeb: milestone k holds once the chain is past stage k (the env is its own backend)."""

    def __init__(self, descriptions: list[str]):
        from gui_gym.suites.base import Milestone

        self._milestones = [Milestone(d, lambda env, k=k: env.reached() > k) for k, d in enumerate(descriptions)]

    def milestones(self) -> list[Any]:
        return self._milestones


class TextWebEnv(gym.Env):
    """The env over a list of `Template`s; reset with ``options={"task_id", "instance_seed"}``
    as a `GUIEnv` (and optionally ``"max_steps"``: the episode's own step limit, an expert
    framework's budget), step with element actions (``click(element=i)``, ``done``) or keys
    (``key("tab")``, ``key("enter")``). It is its own `backend` and its `task` gives the
    milestones, for `OracleJudge`."""

    metadata = {"render_modes": []}

    def __init__(self, templates: list[Template], max_extra_steps: int = 3):
        self.templates = {t.task_id: t for t in templates}
        self.task_ids = list(self.templates)
        self.max_extra_steps = max_extra_steps
        self.backend = self  # what `OracleJudge` checks the milestones on
        self.observation_space = gym.spaces.Dict({})
        self.action_space = gym.spaces.Discrete(1)  # actions are `Action`s, checked in `step`

    # ---- Gymnasium ----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = options or {}
        self.template = self.templates[options.get("task_id", self.task_ids[0])]
        instance = int(options.get("instance_seed", 0))
        self.pages, goals = self._instance(self.template, instance)
        named = [g for g in goals if g]
        self.instruction = (f"{named[0][0].upper()}{named[0][1:]}, " + ", ".join(named[1:])
                            + (", " if named[1:] else "") + f"then {self.template.save.lower()}.")
        self.subtask_names = [g or f"the {s.role} step {k + 1}" for k, (g, s) in enumerate(zip(goals, self.template.stages))]
        self.stage, self.on_error, self.steps, self.span_of_step, self.focus = 0, False, 0, [], None
        self.wrong: int | None = None  # the first deferred stage clicked wrong, not yet revealed
        self.rejected = False  # the error page is the save's rejection of a deferred mistake
        self.max_steps = int(options.get("max_steps", len(self.template.stages) + 1 + self.max_extra_steps))
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, received {self.max_steps}")
        self.task = _Milestones(self.subtask_names + [f"{self.template.save.lower()} the changes"])
        return self._obs(), {"task_id": self.template.task_id, "instruction": self.instruction, "seed": instance}

    def expert_plan(self, task_id: str, instance_seed: int) -> list[str]:
        """The expert's plan of an instance (`gui_gym.env.GUIEnv.expert_plan`, BEPA's LEVEL-1):
        one line per stage naming the element to click, hidden stages included, then the
        save button: what an abstraction of the oracle's trajectory says."""
        template = self.templates[task_id]
        pages, _ = self._instance(template, int(instance_seed))
        return ([f"click the {rights[0]} {stage.role}" for (_, rights), stage in zip(pages, template.stages)]
                + [f"click the {template.save} button"])

    @staticmethod
    def _instance(template: Template, instance: int) -> tuple[list[tuple[list[str], tuple[str, ...]]], list[str | None]]:
        """Per stage, the page's element names in page order and the right ones (the first is
        the expert plan's; a second where the stage has an alternate), and the stage's goal in
        the instruction (None for a hidden stage)."""
        rng = random.Random(f"{template.task_id}/{instance}")
        pages: list[tuple[list[str], tuple[str, ...]]] = []
        goals: list[str | None] = []
        for stage in template.stages:
            if stage.kind == "varying":
                names = rng.sample(list(stage.convention), len(stage.convention))
            elif stage.kind == "hidden":
                names = list(stage.convention)
            else:  # a pool's right names differ between stages ("choose March, choose June")
                taken = {rights[0] for _, rights in pages}
                names = rng.sample([n for n in POOLS[stage.kind] if n not in taken], stage.options)
            rights = tuple(names[:2 if stage.alternate else 1])
            rng.shuffle(names)
            pages.append((names, rights))
            goals.append(VERBS[stage.kind].format(rights[0]) if stage.kind in VERBS else None)
        return pages, goals

    def reached(self) -> int:
        """The milestones reached, in order: the stages passed, up to a deferred mistake
        (what the page shows may be further on)."""
        return self.stage if self.wrong is None else min(self.stage, self.wrong)

    def step(self, action: Action) -> tuple[dict, float, bool, bool, dict]:
        self.steps += 1
        self.span_of_step.append(min(self.stage, len(self.pages) - 1))
        elements = self._elements()
        error = None
        done = False
        if not isinstance(action, Action):
            error = f"expected a gui_gym Action, received {type(action).__name__}"
        elif action.kind == "done":
            done = True
        elif action.kind == "click" and action.element is not None:
            if not 0 <= action.element < len(elements):
                error = f"no element {action.element} on the page (it has {len(elements)})"
            else:
                self._click(elements[action.element]["name"])
        elif action.kind == "key" and action.keys == ("tab",):
            self.focus = 0 if self.focus is None else (self.focus + 1) % len(elements)
        elif action.kind == "key" and action.keys == ("enter",) and self.focus is not None:
            self._click(elements[self.focus]["name"])
        # any other action (a scroll, another key, a typed text) changes nothing on these pages
        success = self.stage > len(self.pages)
        terminated = done or success
        truncated = not terminated and self.steps >= self.max_steps
        info: dict[str, Any] = {"action_error": error, "parsed_action": action if error is None else None}
        if terminated or truncated:
            reached = min(self.reached(), len(self.pages))
            milestones = len(self.pages) + 1
            info.update(success=success, score=float(success), progress=(reached + success) / milestones,
                        subtasks=[{"description": name, "completed": k < reached}
                                  for k, name in enumerate(self.subtask_names)],
                        subtask_of_step=list(self.span_of_step))
        return self._obs(), float(success) if terminated else 0.0, terminated, truncated, info

    # ---- pages --------------------------------------------------------------------------------

    def _click(self, name: str) -> None:
        self.focus = None  # every activation opens a page (the same error page for Help)
        if self.on_error:
            self.on_error = name != "Back"
            if name == "Back" and self.rejected:  # back to the deferred stage clicked wrong
                self.stage, self.wrong, self.rejected = self.wrong, None, False
        elif self.stage == len(self.pages):
            saved = name == self.template.save and self.wrong is None
            self.stage += saved
            self.on_error = not saved
            self.rejected = name == self.template.save and not saved
        elif name in self.pages[self.stage][1]:
            self.stage += 1
        elif self.template.stages[self.stage].deferred:  # the page looks as after a right click
            self.wrong = self.stage if self.wrong is None else self.wrong
            self.stage += 1
        else:
            self.on_error = True

    def _elements(self) -> list[dict[str, Any]]:
        if self.on_error:
            names, role = ["Back", "Help"], "link"
        elif self.stage >= len(self.pages):
            names, role = [self.template.save, "Cancel"], "button"
        else:
            names, role = self.pages[self.stage][0], self.template.stages[self.stage].role
        return [{"index": i, "role": role, "name": name, "focused": i == self.focus} for i, name in enumerate(names)]

    def observation(self) -> dict[str, Any]:
        """What the agent is shown now (the last reset's or step's observation): a judge that
        may read only what the agent saw reads this (`gui_gym.benchmarks.learning.reader`)."""
        return self._obs()

    def _obs(self) -> dict[str, Any]:
        page = ("rejected" if self.rejected else "error") if self.on_error else f"step{min(self.stage, len(self.pages))}"
        return {"a11y_tree": format_elements(self._elements()), "url": f"http://textweb.local/{page}",
                "instruction": self.instruction}

    def oracle_action(self) -> Action:
        """The right element of the current page, the expert plan's (Back on an error page)."""
        names = [el["name"] for el in self._elements()]
        if self.on_error:
            return Action.click_element(names.index("Back"))
        if self.stage >= len(self.pages):
            return Action.click_element(names.index(self.template.save))
        return Action.click_element(names.index(self.pages[self.stage][1][0]))
