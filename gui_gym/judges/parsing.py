"""Reading structured answers out of a judge's free text, and asking again when it strays.

Models wrap JSON in prose and code fences, or answer in ``Key: value`` lines; both are read
here. An answer that holds neither is a `JudgeFormatError`, never a default value: `ask`
shows the model its own answer and the error and asks again, and after the last attempt the
error propagates, carrying every answer, so callers record it instead of scoring it.

Reading takes time linear in the answer, which is at most `MAX_ANSWER_CHARS` long: a JSON
object is looked for from at most `MAX_JSON_STARTS` opening braces (each failed attempt costs
the length of the text before it, so trying every brace of 160k was quadratic: 8.5 s), and
JSON that is nested too deep or holds an integer past Python's 4,300-digit limit is a
`JudgeFormatError` like any other malformed answer.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any, Callable, Iterator, Sequence, TypeVar

from gui_gym.errors import JudgeFormatError, excerpt
from gui_gym.models.chat import ChatModel, Message

T = TypeVar("T")

MAX_ANSWER_CHARS = 65_536
"""Longest judge answer read (a verdict with its reasoning is a few thousand characters)."""
MAX_JSON_STARTS = 32
"""Opening braces (and fenced blocks) a JSON object is looked for from, in an answer that is
not JSON as a whole."""
_OBJECT_START = re.compile(r'\{\s*["}]')
_NUMBERED = re.compile(r"[\[(*#-]*\s*(\d{1,6})\s*[.):\]]+\s*(.+)")
"""A numbered line (stripped first): ``1. yes``, ``(2) no``, ``- 3: met``."""
_TRUE = frozenset({"true", "yes", "y", "met", "1", "done", "completed", "complete", "success"})
_FALSE = frozenset({"false", "no", "n", "unmet", "not met", "0", "not done", "incomplete", "failure"})


def check_answer(text: Any) -> str:
    """`text` when it is an answer this module reads (a string of at most
    `MAX_ANSWER_CHARS` characters), else a `JudgeFormatError`."""
    if not isinstance(text, str):
        raise JudgeFormatError(f"expected the judge's answer as text, received {type(text).__name__}", str(text))
    if len(text) > MAX_ANSWER_CHARS:
        raise JudgeFormatError(f"the answer is {len(text)} characters long; at most {MAX_ANSWER_CHARS} are read",
                               text[:MAX_ANSWER_CHARS])
    return text


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in `text`: the whole answer, one of its first `MAX_JSON_STARTS`
    fenced blocks, or an object embedded in prose (found from one of its first
    `MAX_JSON_STARTS` opening braces that can begin an object)."""
    check_answer(text)
    fenced = text.split("```", 2 * MAX_JSON_STARTS)[1:2 * MAX_JSON_STARTS:2]  # the insides of ``` pairs, in order
    candidates = [text.strip(), *(_without_language(block).strip() for block in fenced)]
    for candidate in candidates:
        value = _loads(candidate)
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder()
    for start in _object_starts(text):
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    raise JudgeFormatError(f"expected a JSON object in the answer, received {excerpt(text)}", text)


def _loads(text: str) -> Any:
    """The JSON value of `text`, or None when it is not JSON (nor readable JSON: nested too
    deep, an integer past the digit limit)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _without_language(block: str) -> str:
    return block[4:] if block[:4] in ("json", "JSON") else block


def _object_starts(text: str) -> Iterator[int]:
    """Positions of the first `MAX_JSON_STARTS` braces that can open an object: a key's quote
    or the closing brace follows, after whitespace."""
    return (match.start() for match in itertools.islice(_OBJECT_START.finditer(text), MAX_JSON_STARTS))


def parse_fields(text: str, names: Sequence[str]) -> dict[str, str]:
    """``Name: value`` lines (case-insensitive names, the last occurrence wins) for every
    name in `names`; a missing one is a `JudgeFormatError`."""
    check_answer(text)
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
    check_answer(text)
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
        match = _NUMBERED.match(line.strip())
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
        answers.append(answer[:MAX_ANSWER_CHARS] if isinstance(answer, str) else excerpt(answer))
        try:
            return parse(check_answer(answer))
        except JudgeFormatError as exc:
            error = exc
        if attempt < attempts:
            conversation += [Message.assistant(answers[-1]),
                             Message.user(f"Your answer could not be read: {error} "
                                          "Answer the same question again, strictly in the format asked for.")]
    raise JudgeFormatError(f"judge {judge.identity!r} answered off-format {attempts} time(s); last error: {error}",
                           "\n---\n".join(answers))
