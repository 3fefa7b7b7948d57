"""MMBench-GUI L1 and L2 records as one-step tasks on the static backend.

Setup shows the recorded screenshot; the agent's one output ends the episode (`Task.ended`),
whatever it holds; evaluation scores it by the official rules: L1 the option letter named by
the answer, L2 the last point inside the target box. Each task knows its solution (the true
letter, the centre of the true box), and the action spaces sample what a random agent of
the benchmark does (a letter among the options shown, a click anywhere on the screenshot), so
a random agent scores at chance.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.backends.base import Backend
from gui_gym.spaces import ActionSpace
from gui_gym.suites.base import Episode, Task, TaskSuite
from gui_gym.suites.mmbench.answers import box_centre, normalize_box, parse_option_letter, point_in_box
from gui_gym.suites.mmbench.data import Question, Target
from gui_gym.suites.mmbench.scoring import breakdown_tables


def l1_instruction(question: Question) -> str:
    """The question as the official L1 prompt lays it out: hint, question, lettered options."""
    lines = [f"Hint: {question.hint}"] if question.hint else []
    lines.append(f"Question: {question.question}")
    lines.append("Options:")
    lines.extend(f"{letter}. {text}" for letter, text in question.options.items())
    lines.append("Please select the correct answer from the options above.")
    return "\n".join(lines)


class QuestionTask(Task):
    """An L1 question: answer with the letter of the right option."""

    def __init__(self, question: Question):
        self.question = question
        self.task_id = question.task_id
        self.instruction = l1_instruction(question)
        self.domain = question.platform
        self.max_steps = 1
        self.metadata = describe_question(question)

    def setup(self, backend: Backend) -> None:
        backend.show(self.question.image)

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        return float(parse_option_letter(episode.answer) == self.question.answer)

    def oracle(self, backend: Backend) -> Iterator[Action]:
        yield Action.answer(self.question.answer)

    def ended(self, backend: Backend, episode: Episode) -> bool:
        return True


class TargetTask(Task):
    """An L2 (or ScreenSpot) target: point inside the element the instruction describes."""

    def __init__(self, target: Target):
        self.target = target
        self.task_id = target.task_id
        self.instruction = target.instruction
        self.domain = target.platform
        self.max_steps = 1
        self.metadata = describe_target(target)
        self.box: tuple[float, float, float, float] | None = None
        """The target box, normalized against the screenshot actually shown (set by setup)."""

    def setup(self, backend: Backend) -> None:
        backend.show(self.target.image)
        self.box = normalize_box(self.target.bbox, backend.screen_size, where=f"{self.task_id} bbox")

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        points = [action.point for action in episode.actions if action.point is not None]
        return float(bool(points) and point_in_box(points[-1], self.box, backend.screen_size))

    def oracle(self, backend: Backend) -> Iterator[Action]:
        yield Action.click(*box_centre(self.box, backend.screen_size))

    def ended(self, backend: Backend, episode: Episode) -> bool:
        return True


def describe_question(question: Question) -> dict[str, Any]:
    return {"task_id": question.task_id, "level": "L1", "domain": question.platform,
            "platform": question.platform, "app_name": question.app_name,
            "difficulty": question.difficulty, "options_num": len(question.options)}


def describe_target(target: Target) -> dict[str, Any]:
    extra = {k: v for k, v in target.extra.items() if v is not None}
    return {"task_id": target.task_id, "level": "L2", "domain": target.platform,
            "platform": target.platform, "app_name": target.app_name, "data_type": target.data_type,
            "grounding_type": target.grounding_type, **extra}


class _RecordSuite(TaskSuite):
    """A fixed list of records, one task each; `report` prints the official tables."""

    def __init__(self, name: str, records: dict[str, Any], make: Callable[[Any], Task],
                 describe: Callable[[Any], dict[str, Any]], answers: str = "meant"):
        self.name = name
        self._records = records
        self._make = make
        self._describe = describe
        self.answers = answers
        """How L1 answers are read ("meant" or "official"); the report says which."""

    @property
    def task_ids(self) -> list[str]:
        return list(self._records)

    def make_task(self, task_id: str, seed: int) -> Task:
        self.check_task_id(task_id)
        return self._make(self._records[task_id])

    def describe(self, task_id: str) -> dict[str, Any]:
        self.check_task_id(task_id)
        return self._describe(self._records[task_id])

    def report(self, results: list[dict[str, Any]]) -> str:
        known = [{**self.describe(r["task_id"]), **r} if r.get("task_id") in self._records else r for r in results]
        return breakdown_tables(known, self.answers)


def l1_suite(questions: list[Question], name: str = "mmbench-l1", answers: str = "meant") -> TaskSuite:
    return _RecordSuite(name, {q.task_id: q for q in questions}, QuestionTask, describe_question, answers)


def l2_suite(targets: list[Target], name: str = "mmbench-l2") -> TaskSuite:
    return _RecordSuite(name, {t.task_id: t for t in targets}, TargetTask, describe_target)


class AnswerSpace(ActionSpace):
    """Answers to the question on screen: `sample` draws one of its option letters, so a
    random agent scores at chance (1/n for n options)."""

    def __init__(self, screen_size: tuple[int, int], action_format: str, letters: Callable[[], str],
                 format_context: dict[str, Any] | None = None, seed: int | None = None):
        super().__init__(screen_size, action_format, kinds=("answer",), format_context=format_context, seed=seed)
        self.letters = letters

    def sample(self, mask: Any = None, probability: Any = None) -> Action:
        if mask is not None or probability is not None:
            raise NotImplementedError("AnswerSpace.sample does not take a mask or probability")
        letters = self.letters()
        return Action.answer(letters[int(self.np_random.integers(len(letters)))])


class CurrentLetters:
    """The option letters of the question `env` shows (A-D before the first reset).

    A copy in another process has no env to ask (an async vector env pickles the spaces to
    compare them in its workers), so a pickled one keeps the letters shown when it was made."""

    def __init__(self, env: Any):
        self.env = env

    def __call__(self) -> str:
        task = self.env.task
        return "".join(task.question.options) if isinstance(task, QuestionTask) else "ABCD"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return functools.partial, (str, self())


def click_space(screen_size: tuple[int, int], action_format: str, format_context: dict[str, Any]) -> ActionSpace:
    """Clicks anywhere on the screenshot: a random agent hits a box with the probability of
    its area share."""
    return ActionSpace(screen_size, action_format, kinds=("click",), format_context=format_context)

