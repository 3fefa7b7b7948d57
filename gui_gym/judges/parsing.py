"""Reading structured answers out of a judge's free text, and asking again when it strays.

Models wrap JSON in prose and code fences, or answer in ``Key: value`` lines; both are read
here. An answer that holds neither is a `JudgeFormatError`, never a default value: `ask`
shows the model its own answer and the error and asks again, and after the last attempt the
error propagates, carrying every answer, so callers record it instead of scoring it.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Sequence, TypeVar

from gui_gym.errors import JudgeFormatError, excerpt
from gui_gym.models.chat import ChatModel, Message

T = TypeVar("T")

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRUE = frozenset({"true", "yes", "y", "met", "1", "done", "completed", "complete", "success"})
_FALSE = frozenset({"false", "no", "n", "unmet", "not met", "0", "not done", "incomplete", "failure"})


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in `text`: the whole answer, a fenced block, or an object
    embedded in prose."""
    if not isinstance(text, str):
        raise JudgeFormatError(f"expected the judge's answer as text, received {type(text).__name__}", str(text))
    candidates = [text.strip(), *(block.strip() for block in _FENCE.findall(text))]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder()
    for start in (i for i, char in enumerate(text) if char == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise JudgeFormatError(f"expected a JSON object in the answer, received {excerpt(text)}", text)


def parse_fields(text: str, names: Sequence[str]) -> dict[str, str]:
    """``Name: value`` lines (case-insensitive names, the last occurrence wins) for every
    name in `names`; a missing one is a `JudgeFormatError`."""
    found: dict[str, str] = {}
    wanted = {name.lower(): name for name in names}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        key = key.strip().strip("*#-` ").lower()
        if sep and key in wanted:
            found[wanted[key]] = value.strip().strip("*` ")
    missing = [name for name in names if name not in found]
    if missing:
        raise JudgeFormatError(f"expected lines {', '.join(f'{n}: ...' for n in missing)} in the answer, "
                               f"received {excerpt(text)}", text)
    return found


def parse_flag(value: Any) -> bool:
    """A yes/no answer: JSON booleans, 0/1, or words such as yes, no, met, unmet."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        words = value.strip().lower()
        first = re.split(r"[^a-z0-9]+", words, maxsplit=1)[0]
        for candidate in (words.strip("."), first):
            if candidate in _TRUE:
                return True
            if candidate in _FALSE:
                return False
    raise JudgeFormatError(f"expected true/false (or yes/no), received {value!r}", str(value))


def parse_flags(text: str, key: str, count: int) -> list[bool]:
    """Exactly `count` yes/no flags, from JSON ``{key: [..]}`` or from numbered lines
    ``1: yes`` ... ``count: no``."""
    try:
        value = extract_json_object(text)
    except JudgeFormatError:
        value = None
    if value is not None and key in value:
        flags = value[key]
        if not isinstance(flags, list) or len(flags) != count:
            got = f"{len(flags)} values" if isinstance(flags, list) else type(flags).__name__
            raise JudgeFormatError(f"expected {key!r} to be a list of {count} true/false values, received {got}", text)
        return [parse_flag(flag) for flag in flags]
    numbered: dict[int, bool] = {}
    for line in text.splitlines():
        match = re.match(r"^\s*[\[(*#-]*\s*(\d+)\s*[.):\]]+\s*(.+?)\s*$", line)
        if match:
            try:
                numbered[int(match.group(1))] = parse_flag(match.group(2).strip("*` "))
            except JudgeFormatError:
                continue
    if sorted(numbered) == list(range(1, count + 1)):
        return [numbered[i] for i in range(1, count + 1)]
    raise JudgeFormatError(f"expected a JSON object {{{key!r}: [{count} true/false values]}} or numbered lines "
                           f"1..{count} with yes/no, received {excerpt(text)}", text)


def ask(judge: ChatModel, messages: Sequence[Message], parse: Callable[[str], T], *, attempts: int = 3,
        seed: int | None = None) -> T:
    """Ask `judge` and parse its answer; on an off-format answer, show the model its answer
    and the error and ask again, up to `attempts` times in all. The last `JudgeFormatError`
    propagates with every answer in its message."""
    if attempts < 1:
        raise ValueError(f"attempts must be >= 1, received {attempts}")
    conversation = list(messages)
    answers: list[str] = []
    for attempt in range(1, attempts + 1):
        answer = judge.complete(conversation, seed=seed)
        answers.append(answer if isinstance(answer, str) else repr(answer))
        try:
            return parse(answer)
        except JudgeFormatError as exc:
            error = exc
        if attempt < attempts:
            conversation += [Message.assistant(answers[-1]),
                             Message.user(f"Your answer could not be read: {error} "
                                          "Answer the same question again, strictly in the format asked for.")]
    raise JudgeFormatError(f"judge {judge.identity!r} answered off-format {attempts} time(s); last error: {error}",
                           "\n---\n".join(answers))
