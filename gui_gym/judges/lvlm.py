"""PAGE's questions put to a vision-language model: criteria extraction, criterion marking,
subtask segmentation and completion verification.

Each question is one chat call with the instruction, every action as text (fenced as the
agent's data, `gui_gym.judges.fencing`), and a bounded number of screenshots (the start, the end, and evenly spaced ones between: a 30-step episode
at full resolution would not fit a context). Answers are JSON; the parsers also read
numbered ``1: yes`` lines. An off-format answer is asked again (`ask`) and then raised as
`JudgeFormatError`, which the wrappers record; it never becomes a mark or a span.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym

from gui_gym.errors import JudgeFormatError, excerpt
from gui_gym.judges.fencing import DATA_RULE, fence
from gui_gym.judges.parsing import ask, extract_json_object, parse_flags
from gui_gym.judges.trajectory import Subtask, TrajectoryJudge
from gui_gym.models.chat import ChatModel, Message, Part, SharedOnCopy
from gui_gym.records import Trajectory

SYSTEM = ("You judge the trajectories of a GUI agent. You see the task instruction, the agent's actions and "
          "screenshots of the screen. Base every judgement on what the screenshots and actions show, never on "
          "what the agent claims. Answer only in the format asked for. " + DATA_RULE)


class LVLMJudge(SharedOnCopy):
    """Answers trajectory questions with a `ChatModel`.

    Args:
        judge: the chat model.
        max_images: screenshots shown per question (start and end always included).
        attempts: tries per question when the answer is off-format.
    """

    def __init__(self, judge: ChatModel, *, max_images: int = 8, attempts: int = 3):
        if not isinstance(judge, ChatModel):
            raise TypeError(f"expected a ChatModel (identity and complete(messages, seed=...)), received {type(judge).__name__}")
        if max_images < 2:
            raise ValueError(f"max_images must be >= 2 (start and end), received {max_images}")
        if attempts < 1:
            raise ValueError(f"attempts must be >= 1, received {attempts}")
        self.judge = judge
        self.max_images = max_images
        self.attempts = attempts
        self.identity = f"lvlm:{judge.identity}"

    def probe(self, env: gym.Env) -> None:
        return None

    def own_criteria(self, trajectory: Trajectory) -> None:
        return None

    def mark(self, trajectory: Trajectory, criteria: Sequence[str], *, seed: int | None = None) -> list[bool]:
        listing = "\n".join(f"{i}. {criterion}" for i, criterion in enumerate(criteria, 1))
        question = (f"Criteria:\n{listing}\n\nFor each criterion, decide whether the trajectory has met it by its last "
                    f"step. Answer with a JSON object only: {{\"met\": [...]}} holding exactly {len(criteria)} "
                    "true/false values, in the criteria's order.")
        return ask(self.judge, self._messages(trajectory, question), lambda text: parse_flags(text, "met", len(criteria)),
                   attempts=self.attempts, seed=seed)

    def segment(self, trajectory: Trajectory, *, seed: int | None = None) -> list[Subtask]:
        last = len(trajectory) - 1
        question = (f"Split the agent's steps 0..{last} into consecutive subtasks, in order: each subtask is a short "
                    "description of what its steps work towards, and a span of steps. The spans must cover every step "
                    "exactly once. Answer with a JSON object only: {\"subtasks\": [{\"description\": \"...\", "
                    "\"start\": 0, \"end\": 2}, ...]}.")
        spans = ask(self.judge, self._messages(trajectory, question), lambda text: parse_spans(text, len(trajectory)),
                    attempts=self.attempts, seed=seed)
        claims = [f"{description} (steps {start}-{end}: was this subtask completed by step {end}?)"
                  for description, start, end in spans]
        completed = self.mark(trajectory, claims, seed=seed)
        return [Subtask(description, start, end, done) for (description, start, end), done in zip(spans, completed)]

    def propose_criteria(self, trajectory: Trajectory, previous: Sequence[str] | None, *,
                         seed: int | None = None) -> list[str]:
        """One step of criteria extraction: from this successful trajectory, propose an ordered
        list of checkable criteria, or refine `previous`."""
        if previous:
            listing = "\n".join(f"{i}. {c}" for i, c in enumerate(previous, 1))
            task = (f"The current criteria are:\n{listing}\n\nRefine them with this trajectory: keep what it confirms, "
                    "fix what it contradicts, add steps it shows are needed, drop what it shows is unnecessary. If "
                    "nothing needs to change, return the current criteria unchanged, word for word.")
        else:
            task = "Propose the criteria."
        question = ("This trajectory completed the task successfully. Criteria are the ordered, checkable intermediate "
                    "states that every successful attempt at this task passes through: each one short, verifiable from "
                    "a screenshot, and phrased with the task's own values so that it holds for this instruction. "
                    f"{task} Answer with a JSON object only: {{\"criteria\": [\"...\", ...]}}.")
        return ask(self.judge, self._messages(trajectory, question), parse_criteria, attempts=self.attempts, seed=seed)

    def _messages(self, trajectory: Trajectory, question: str) -> list[Message]:
        shown = _shown_steps(trajectory, self.max_images)
        parts: list[Part] = [f"Task instruction: {trajectory.instruction}\n\n"
                             f"The agent took {len(trajectory)} step(s). Screenshots are shown for some of them; "
                             "every action is listed.\n"]
        if trajectory.start_screenshot is not None and -1 in shown:
            parts += ["Start screen:", trajectory.start_screenshot]
        for index, step in enumerate(trajectory.steps):
            line = f"\nStep {index}: action {_action_text(step.parsed_action)}"
            if step.action_error:
                line += f" (error: {fence(step.action_error)})"
            parts.append(line)
            if step.screenshot is not None and index in shown:
                parts += [f" Screen after step {index}:", step.screenshot]
        parts.append(f"\n\n{question}")
        return [Message.system(SYSTEM), Message.user(*parts)]


def parse_spans(text: str, length: int) -> list[tuple[str, int, int]]:
    """Subtask spans ``(description, start, end)`` that cover steps 0..length-1 in order."""
    value = extract_json_object(text)
    items = value.get("subtasks")
    if not isinstance(items, list) or not items:
        raise JudgeFormatError(f"expected a non-empty list 'subtasks' in the answer, received {excerpt(text)}", text)
    spans: list[tuple[str, int, int]] = []
    expected_start = 0
    for item in items:
        if not isinstance(item, dict):
            raise JudgeFormatError(f"expected each subtask as an object, received {item!r}", text)
        description, start, end = item.get("description"), item.get("start"), item.get("end")
        if not isinstance(description, str) or not description.strip():
            raise JudgeFormatError(f"expected a non-empty 'description' in subtask {item!r}", text)
        if not (isinstance(start, int) and isinstance(end, int)) or isinstance(start, bool) or isinstance(end, bool):
            raise JudgeFormatError(f"expected integer 'start' and 'end' in subtask {item!r}", text)
        if start != expected_start or end < start or end >= length:
            raise JudgeFormatError(f"expected consecutive spans covering steps 0..{length - 1}; subtask "
                                   f"{description!r} spans {start}..{end} where step {expected_start} comes next", text)
        spans.append((description.strip(), start, end))
        expected_start = end + 1
    if expected_start != length:
        raise JudgeFormatError(f"expected the spans to reach the last step {length - 1}, they end at {expected_start - 1}",
                               text)
    return spans


def parse_criteria(text: str) -> list[str]:
    """A non-empty list of criteria strings from ``{"criteria": [...]}``."""
    items = extract_json_object(text).get("criteria")
    if not isinstance(items, list) or not items or not all(isinstance(c, str) and c.strip() for c in items):
        raise JudgeFormatError(f"expected 'criteria' as a non-empty list of non-empty strings, received {excerpt(text)}",
                               text)
    return [c.strip() for c in items]


def _shown_steps(trajectory: Trajectory, max_images: int) -> set[int]:
    """Step indices whose screenshot is shown (-1 is the start screen): the start and the
    end always, the others evenly spaced."""
    indices = list(range(-1, len(trajectory)))
    if len(indices) <= max_images:
        return set(indices)
    last = len(indices) - 1
    return {indices[round(k * last / (max_images - 1))] for k in range(max_images)}


def _action_text(action: Any) -> str:
    """The parsed action, fenced: its text fields are the agent's (`gui_gym.judges.fencing`)."""
    if action is None:
        return "(none: the output did not parse)"
    return fence(action)


def as_trajectory_judge(judge: ChatModel | TrajectoryJudge) -> TrajectoryJudge:
    """`judge` itself if it answers trajectory questions, else an `LVLMJudge` over the chat
    `judge`."""
    if isinstance(judge, TrajectoryJudge):
        return judge
    if isinstance(judge, ChatModel):
        return LVLMJudge(judge)
    raise TypeError(f"expected a ChatModel (complete(messages)) or a TrajectoryJudge (mark, segment), "
                    f"received {type(judge).__name__}")
