"""Function calls, as tool-calling models write them: ``{"name": "click", "arguments": {"x": 10, "y": 20}}``.

The function's name is the action's kind and its arguments are the `Action`'s fields, so
the format is lossless: ``keys`` is a list, except that the one-key kinds (key, key_down,
key_up) take one ``key``. Read also in OpenAI's chat-completions shape
(``{"type": "function", "function": {"name": ..., "arguments": "<JSON text>"}}``), as JSON
text, or as a list of calls. It is the action set gui-gym's CUBE benchmarks publish
(`gui_gym.cube`), and what ``GUI/CUBE-v0`` sends a benchmark that speaks it.

A benchmark's own tools rarely name our kinds. `call_for` and `action_for` translate
between an `Action` and the calls a tool set offers, given the names and parameters of its
functions (`Function`): our own set; ``final_step``, the stop action every CUBE tool has,
for a bare ``done``; and an answer function (one that takes one argument and whose name says
answer or submit, such as ``submit_answer(answer)``) for ``answer`` and a ``done`` with a
text. A call with no canonical counterpart raises `ActionParseError` naming the functions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from gui_gym.actions import MAX_OUTPUT_CHARS, Action, check_action_count, check_text
from gui_gym.action_formats.reading import load_json
from gui_gym.errors import ActionParseError, excerpt

STOP = "final_step"
"""CUBE's stop action: every CUBE tool has it; it takes no argument."""
ANSWER_WORDS = ("answer", "submit")
"""What the name of an answer function says (``submit_answer``, ``answer``, ``submit``)."""
ONE_KEY_KINDS = frozenset({"key", "key_down", "key_up"})


@dataclass(frozen=True)
class Function:
    """What `call_for` needs to know of one function a tool offers: its name, its parameter
    names, and the JSON-schema type of each (``"integer"``, ``"string"``, ...; None when not
    given)."""

    name: str
    parameters: tuple[str, ...] = ()
    types: tuple[str | None, ...] = ()

    @classmethod
    def from_schema(cls, name: str, parameters: Mapping[str, Any] | None) -> "Function":
        """From a function's JSON-schema ``parameters`` (``{"properties": {...}}``)."""
        properties = dict((parameters or {}).get("properties") or {})
        properties.pop("self", None)
        return cls(name, tuple(properties), tuple(spec.get("type") if isinstance(spec, Mapping) else None
                                                  for spec in properties.values()))


def parse(value: "str | Mapping[str, Any] | list[Any]", **context: Any) -> Action:
    """Exactly one action from one call (or a one-element list)."""
    actions = parse_many(value, **context)
    if len(actions) != 1:
        raise ActionParseError(f"expected exactly one function call, received {len(actions)}")
    return actions[0]


def parse_many(value: "str | Mapping[str, Any] | list[Any]", **context: Any) -> list[Action]:
    """Every action of one call or a non-empty list of them; ``functions`` in `context`
    (a sequence of `Function`) is the tool set the calls were written for (`action_for`)."""
    if isinstance(value, str):
        check_text(value, "the function-call output", MAX_OUTPUT_CHARS)
        value = load_json(value, "a function call")
    calls = value if isinstance(value, list) else [value]
    if not calls:
        raise ActionParseError("expected a function call or a list of them, received an empty list")
    check_action_count(len(calls))
    return [action_for(*_name_and_arguments(call), context.get("functions")) for call in calls]


def format(action: Action, **context: Any) -> dict[str, Any]:
    """The call for `action`: ``{"name", "arguments"}``, in the tool set ``functions`` of
    `context` when given (`call_for`)."""
    name, arguments = call_for(action, context.get("functions"))
    return {"name": name, "arguments": arguments}


def action_for(name: str, arguments: Mapping[str, Any], functions: Sequence[Function] | None = None) -> Action:
    """The `Action` a call of tool set `functions` (None: our own) means."""
    if name == STOP and not arguments:
        return Action.done()
    answer = _answer_function(functions)
    if answer is not None and name == answer.name:
        value = next(iter(arguments.values()), None) if len(arguments) == 1 else None
        if value is None:
            raise ActionParseError(f"{name} takes one argument ({answer.parameters[0]}), received {excerpt(dict(arguments))}")
        return Action.answer(value if isinstance(value, str) else json.dumps(value))
    if functions is not None and name not in {function.name for function in functions}:
        raise ActionParseError(f"no function {excerpt(name)} in this tool set; it offers "
                               f"{sorted(function.name for function in functions)}")
    if "kind" in arguments:
        raise ActionParseError(f"{name}: 'kind' is the function's name, not an argument")
    fields = dict(arguments)
    if name in ONE_KEY_KINDS and "key" in fields:
        fields["keys"] = [fields.pop("key")]
    return Action.from_dict({**fields, "kind": name})


def call_for(action: Action, functions: Sequence[Function] | None = None) -> tuple[str, dict[str, Any]]:
    """``(name, arguments)`` of the call that carries out `action` in tool set `functions`
    (None: our own): the function named after its kind when the set has one, else a bare
    ``done`` is ``final_step`` and an answer (or a done with a text) goes to the set's answer
    function. Raises `ActionParseError` when the set offers nothing for it."""
    fields = {name: value for name, value in action.to_dict().items() if name != "kind"}
    if action.kind in ONE_KEY_KINDS and len(action.keys or ()) == 1:
        fields["key"] = fields.pop("keys")[0]
    if action.kind == "done" and action.text is None:
        return STOP, {}
    names = None if functions is None else {function.name for function in functions}
    if names is None or action.kind in names:
        return action.kind, fields
    answer = _answer_function(functions)
    if answer is not None and action.kind in ("answer", "done") and action.text is not None:
        return answer.name, {answer.parameters[0]: _typed(action.text, answer.types[0], answer.name)}
    raise ActionParseError(f"this tool set has no function for a {action.kind} action; it offers {sorted(names)}")


def _answer_function(functions: Sequence[Function] | None) -> Function | None:
    """The one function of the set that takes a single argument and is named like an answer."""
    if functions is None:
        return None
    found = [function for function in functions if len(function.parameters) == 1
             and any(word in function.name.lower() for word in ANSWER_WORDS)]
    return found[0] if len(found) == 1 else None


def _typed(text: str, kind: str | None, name: str) -> Any:
    """An answer's text as the JSON type the answer function declares."""
    if kind in (None, "string"):
        return text
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise ActionParseError(f"{name} takes a{'n' if kind[0] in 'aeiou' else ''} {kind}, received {excerpt(text)}") from None
    expected = {"integer": int, "number": (int, float), "boolean": bool, "array": list, "object": dict}.get(kind, object)
    if not isinstance(value, expected) or (kind in ("integer", "number") and isinstance(value, bool)):
        raise ActionParseError(f"{name} takes a{'n' if kind[0] in 'aeiou' else ''} {kind}, received {excerpt(text)}")
    return value


def _name_and_arguments(call: Any) -> tuple[str, dict[str, Any]]:
    """(name, arguments) of a call in either shape; arguments given as JSON text are read."""
    if not isinstance(call, Mapping):
        raise ActionParseError(f"expected a function call object, received {excerpt(call)}")
    inner = call.get("function", call)
    if not isinstance(inner, Mapping) or not isinstance(inner.get("name"), str):
        raise ActionParseError(f"a function call needs a 'name', received {excerpt(dict(call))}")
    arguments = inner.get("arguments") or {}
    if isinstance(arguments, str):
        arguments = load_json(arguments, f"the arguments of {inner['name']}")
    if not isinstance(arguments, Mapping):
        raise ActionParseError(f"the arguments of {inner['name']} must be an object, received {excerpt(arguments)}")
    return inner["name"], dict(arguments)

