"""Turning ``--agent SPEC`` (``gui-bench``) or ``--policy SPEC`` (``gui-train``) into an agent:
a built-in name, ``module:Class``, or a Python file; both commands take the same specs.

A file is loaded as a module of its own (``path/to/agent.py`` picks the one agent class it
defines, ``path/to/agent.py:Name`` a given one), so users benchmark an agent without packaging
it. Arguments (``--agent-arg k=v``) are checked against the constructor's signature before it
is called, so a typo is named instead of surfacing as a TypeError deep inside. `env_kwargs_for`
says what the env must be made with for an agent (its action format, the a11y tree).
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any, Callable

from gui_gym.agents.base import Agent, TrainableAgent
from gui_gym.errors import AgentError
from gui_gym.extras import require_extra

BUILTIN_AGENTS: dict[str, str] = {
    "random": "gui_gym.agents.random_agent:RandomAgent",
    "oracle": "gui_gym.agents.oracle:OracleAgent",
    "replay": "gui_gym.agents.replay:ReplayAgent",
    "openai": "gui_gym.agents.openai_agent:OpenAIAgent",
    "element": "gui_gym.agents.policies.element:ElementPolicy",
    "vlm": "gui_gym.agents.policies.vlm:VLMPolicy",
}
"""Name -> ``module:Class``; imported only when chosen. ``element`` and ``vlm`` are trainable."""
TRAINABLE_AGENTS = ("element", "vlm")
BUILTIN_EXTRAS: dict[str, str] = {"element": "train", "vlm": "train"}
"""Built-in agents that need an extra (torch, transformers): on an install without it, choosing
one fails at once with the line naming the extra, not with an import error from inside torch."""

SPEC_HELP = ("a name (" + ", ".join(BUILTIN_AGENTS) + "), 'module:Class', or a Python file "
             "'path/to/agent.py' (optionally ':Class')")


def load_agent(spec: str, **kwargs: Any) -> Agent:
    """Build the agent `spec` names with `kwargs`; `AgentError` when it cannot."""
    factory = resolve_agent(spec)
    check_arguments(factory, kwargs, spec)
    try:
        agent = factory(**kwargs)
    except AgentError:
        raise
    except (TypeError, ValueError) as exc:
        raise AgentError(f"agent {spec!r} rejected its arguments: {exc}") from exc
    except Exception as exc:  # the agent's own code failed: name it in one line, not a traceback
        raise AgentError(f"agent {spec!r} failed to start: {type(exc).__name__}: {exc}") from exc
    if not callable(getattr(agent, "act", None)):
        raise AgentError(f"agent {spec!r} built a {type(agent).__name__}, which has no act(obs, info) method")
    return agent


def resolve_agent(spec: str) -> Callable[..., Any]:
    """The class (or factory) that `spec` names."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentError(f"expected an agent spec: {SPEC_HELP}; received {spec!r}")
    spec = spec.strip()
    if spec in BUILTIN_AGENTS:
        if spec in BUILTIN_EXTRAS:
            require_extra(BUILTIN_EXTRAS[spec], f"agent {spec!r}")
        return _from_module(*BUILTIN_AGENTS[spec].split(":"), spec)
    path, _, name = spec.partition(":") if ".py:" in spec else (spec, "", "")
    if path.endswith(".py"):
        return _from_file(Path(path), name or None, spec)
    if ":" in spec:
        module, _, name = spec.partition(":")
        return _from_module(module, name, spec)
    close = difflib.get_close_matches(spec, list(BUILTIN_AGENTS), n=2)
    hint = f"; did you mean {close}?" if close else ""
    raise AgentError(f"unknown agent {spec!r}: expected {SPEC_HELP}{hint}")


def check_arguments(factory: Callable[..., Any], kwargs: dict[str, Any], spec: str) -> None:
    """Raise `AgentError` naming any argument `factory` does not take."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return  # a builtin or C factory: let the call itself judge
    params = signature.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    accepted = [n for n, p in params.items()
                if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)]
    unknown = sorted(set(kwargs) - set(accepted))
    if unknown:
        raise AgentError(f"agent {spec!r} takes no argument(s) {unknown}; it accepts {accepted or 'none'}")


def _from_module(module_name: str, attr: str, spec: str) -> Callable[..., Any]:
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentError(f"agent {spec!r}: cannot import module {module_name!r}: {exc}") from exc
    if not hasattr(module, attr):
        raise AgentError(f"agent {spec!r}: module {module_name!r} has no attribute {attr!r}")
    return getattr(module, attr)


def _from_file(path: Path, attr: str | None, spec: str) -> Callable[..., Any]:
    path = path.expanduser().resolve()
    if not path.is_file():
        raise AgentError(f"agent {spec!r}: no such file {str(path)!r}")
    module_name = "gui_bench_agent_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    module = sys.modules.get(module_name)
    if module is None:
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise AgentError(f"agent {spec!r}: {str(path)!r} cannot be loaded as a Python module")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module  # dataclasses and pickling look the module up by name
        try:
            loader_spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[module_name]
            raise AgentError(f"agent {spec!r}: importing {str(path)!r} failed: {type(exc).__name__}: {exc}") from exc
    if attr is not None:
        if not hasattr(module, attr):
            raise AgentError(f"agent {spec!r}: {path.name} defines no {attr!r}")
        return getattr(module, attr)
    candidates = [obj for obj in vars(module).values()
                  if inspect.isclass(obj) and obj.__module__ == module_name and callable(getattr(obj, "act", None))]
    if len(candidates) != 1:
        names = sorted(c.__name__ for c in candidates)
        raise AgentError(f"agent {spec!r}: expected {path.name} to define exactly one class with an act() method, "
                         f"found {names or 'none'}; name one as '{path.name}:ClassName'")
    return candidates[0]


def load_trainable_agent(spec: str, **kwargs: Any) -> TrainableAgent:
    """`load_agent`, for the trainers: `AgentError` unless the agent is a `TrainableAgent`
    (it also generates with token ids and log-probs, and scores given tokens; it subclasses
    the class, which holds the optional parts' defaults)."""
    agent = load_agent(spec, **kwargs)
    if not isinstance(agent, TrainableAgent):
        missing = [name for name in ("prompt", "generate", "logprobs", "parameters", "reference", "save", "load")
                   if not callable(getattr(agent, name, None))]
        close = getattr(agent, "close", None)
        if callable(close):
            close()
        lacks = f"has no {', '.join(missing)}" if missing else "is no TrainableAgent subclass"
        raise AgentError(f"agent {spec!r} cannot be trained: a {type(agent).__name__} {lacks} (a trainable agent "
                         f"subclasses gui_gym.agents.base.TrainableAgent or PolicyAgent); the trainable built-ins are "
                         f"{list(TRAINABLE_AGENTS)}")
    return agent


def env_kwargs_for(agent: Any) -> dict[str, Any]:
    """What the env must be made with for `agent`: its action format and format context (how
    the env reads its strings) and the accessibility tree when it reads one."""
    out: dict[str, Any] = {}
    for name in ("action_format", "format_context"):
        if getattr(agent, name, None) is not None:
            out[name] = getattr(agent, name)
    if getattr(agent, "observe_a11y", False):
        out["observe_a11y"] = True
    return out
