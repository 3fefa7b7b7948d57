"""The one agent protocol `gui-bench` and the trainers speak.

An `Agent` acts: it is told the task at `reset` and answers each observation with one
action, a canonical `Action` or a string in its declared `action_format` (which the harness
hands to the env, so the env parses and records it exactly as it would any other output).

A `TrainableAgent` (a policy) is an agent whose actions come from a generation it can
account for: `prompt` turns an observation and its `Context` (the instruction, an optional
plan, its own earlier outputs) into the model's input, `generate` turns a prompt into an
`Act` (the action, the text, the token ids and their log-probs), and `logprobs` scores given
tokens under the current weights, with gradients: all the GRPO, PAGE and BEPA losses need.
Building the prompt is separate from generating so that BEPA can act on a plan-conditioned
prompt and train on the plain one. `PolicyAgent` gives a trainable agent its acting half
(`reset`/`act` over `prompt`/`generate`), so ``gui-bench run --agent element`` and
``gui-train --policy element`` take the same agent.

Optional parts, read with defaults when absent:
- ``action_format``: the text format its strings are in ("uitars", "json", ...); None when
  it only returns `Action` objects, which any env accepts.
- ``format_context``: extra parser arguments for that format, e.g. the coordinate space
  ``{"coordinates": "relative1000"}`` of an older UI-TARS model.
- ``observe_a11y``: True when it reads ``obs["a11y_tree"]`` (the env is made with it on).
- ``bind_env(env)``: called once before the first episode, for agents that read the env
  itself (the oracle asks it for the task's own solution).
- ``last_response`` / ``last_thought``: the model's raw output and its reasoning for the
  action just returned; the harness records them beside the action.
- ``last_prompt``: what the agent sent its model for that action, as
  `gui_gym.models.chat.transcript` writes it (text, each image as its size); recorded too, and
  shown by the report's viewer.
- ``close()``: release clients and files.

`BaseAgent` declares them with their defaults. A trainable agent's optional parts
(``generate_many``, ``entropies``, ``logprobs_and_entropies``, ``after_update``,
``check_trainable``) are declared with their defaults on `TrainableAgent`, which a policy
subclasses: the trainers call them without probing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Protocol, Sequence, runtime_checkable

from gui_gym.actions import Action

if TYPE_CHECKING:
    import torch


@runtime_checkable
class Agent(Protocol):
    """What the harness calls. See the module docstring for the optional parts."""

    def reset(self, task_info: dict[str, Any]) -> None:
        """A new episode: `task_info` is the env's reset info (task_id, instruction, domain,
        instance seed) plus the suite's facts about the task and ``reset_seed``."""
        ...

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> "str | Action":
        """The next action for observation `obs` (``info`` is the last step's info)."""
        ...


@dataclass(frozen=True)
class Act:
    """One generation of a trainable agent: `action` goes to the env (an `Action`, or text in
    the agent's `action_format`); `token_ids` are the tokens it generated and `logprobs`
    their log-probs when sampled; `detail` is the agent's own record of the choice (the
    element policy keeps the chosen candidate), read back when it builds later prompts."""

    action: Action | str
    text: str
    token_ids: tuple[int, ...]
    logprobs: tuple[float, ...]
    detail: Any = None


@dataclass(frozen=True)
class Context:
    """What a trainable agent conditions on besides the observation."""

    instruction: str
    plan: tuple[str, ...] | None = None
    """BEPA LEVEL-1: the expert plan, one step per line; None for plain rollouts."""
    history: tuple[Act, ...] = ()
    """The agent's own earlier steps of this episode, oldest first."""

    @property
    def step(self) -> int:
        return len(self.history)

    def without_plan(self) -> "Context":
        return dataclasses.replace(self, plan=None)


class BaseAgent:
    """Defaults for the optional parts of the protocol; subclasses override `act`."""

    action_format: str | None = None
    format_context: dict[str, Any] | None = None
    observe_a11y: bool = False

    def __init__(self) -> None:
        super().__init__()  # cooperative: a torch policy is an nn.Module too
        self.last_response: str | None = None
        self.last_thought: str | None = None
        self.last_prompt: list[dict[str, Any]] | None = None

    def bind_env(self, env: Any) -> None:
        """Nothing to bind by default."""

    def reset(self, task_info: dict[str, Any]) -> None:
        self.last_response = self.last_thought = self.last_prompt = None

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> "str | Action":
        raise NotImplementedError(f"{type(self).__name__} must implement act(obs, info)")

    def close(self) -> None:
        """Nothing to release by default."""


class TrainableAgent(BaseAgent):
    """An agent the trainers can train: a policy. Subclass it (or `PolicyAgent`, which adds
    `reset`/`act`) and implement the required methods; the optional ones have their defaults
    here, so the trainers call them on any policy without asking whether it has them. Prompts
    are opaque to the trainers: whatever the agent needs to generate and to recompute log-probs.
    A torch policy lists ``torch.nn.Module`` after this class in its bases."""

    # ---- required ---------------------------------------------------------------------------

    def prompt(self, obs: Mapping[str, Any], context: Context) -> Any:
        """The agent's input for this step."""
        raise NotImplementedError(f"{type(self).__name__} must implement prompt(obs, context)")

    def generate(self, prompt: Any, *, greedy: bool = False) -> Act:
        """Sample (or, greedy, take the most likely) output for `prompt`."""
        raise NotImplementedError(f"{type(self).__name__} must implement generate(prompt, greedy=...)")

    def logprobs(self, prompts: Sequence[Any], token_ids: Sequence[Sequence[int]]) -> list["torch.Tensor"]:
        """Per prompt, the 1-D tensor of log-probs of `token_ids` under the current weights
        (differentiable)."""
        raise NotImplementedError(f"{type(self).__name__} must implement logprobs(prompts, token_ids)")

    if TYPE_CHECKING:  # declared for type checkers only: a body here would hide torch.nn.Module's
        def parameters(self) -> Iterator["torch.nn.Parameter"]:
            """The trainable parameters (``torch.nn.Module``'s, for a torch policy)."""
            ...

    def reference(self) -> Any:
        """A frozen copy of the current weights (the KL term's reference): only its
        `logprobs` is asked of it."""
        raise NotImplementedError(f"{type(self).__name__} must implement reference()")

    def save(self, folder: str) -> None:
        """Write the trainable weights to `folder`."""
        raise NotImplementedError(f"{type(self).__name__} must implement save(folder)")

    def load(self, folder: str) -> None:
        """Read weights written by `save`."""
        raise NotImplementedError(f"{type(self).__name__} must implement load(folder)")

    # ---- optional, with defaults --------------------------------------------------------------

    def generate_many(self, prompts: Sequence[Any], *, greedy: bool = False) -> list[Act]:
        """`generate` for a wave of prompts: by default one after another, in order (seeded
        sampling reproducible); a policy on a server sends them together, so the server
        batches them."""
        return [self.generate(prompt, greedy=greedy) for prompt in prompts]

    def entropies(self, prompts: Sequence[Any], token_ids: Sequence[Sequence[int]]) -> list["torch.Tensor"]:
        """Like `logprobs`, the entropy of the distribution each token was drawn from, with
        gradients (the trainers' `entropy_coef` bonus). By default a policy reports none
        (`reports_entropies` is False)."""
        raise NotImplementedError(f"{type(self).__name__} does not report entropies")

    @property
    def reports_entropies(self) -> bool:
        """Whether the policy implements `entropies`: without them the trainers refuse
        `entropy_coef` > 0 before any rollout."""
        return type(self).entropies is not TrainableAgent.entropies

    def logprobs_and_entropies(self, prompts: Sequence[Any], token_ids: Sequence[Sequence[int]]
                               ) -> tuple[list["torch.Tensor"], list["torch.Tensor"]]:
        """`logprobs` and `entropies` of the same tokens, what an update with an entropy bonus
        asks for: by default the two calls; a policy that gets both from one forward pass
        overrides it."""
        return self.logprobs(prompts, token_ids), self.entropies(prompts, token_ids)

    def after_update(self) -> None:
        """Called after each update that trained on something; by default nothing (a policy
        generating on a server pushes its new weights there)."""

    def check_trainable(self) -> None:
        """Called by the trainers before the first rollout, to raise when the policy cannot be
        trained as configured (a server whose weights would never be updated); by default
        there is nothing to check."""


class PolicyAgent(TrainableAgent):
    """The acting half of a trainable agent: `act` is `prompt` then `generate` (greedy unless
    `greedy` is False), with the episode's own earlier `Act`s as the context's history. The
    trainers call `prompt` and `generate` themselves; `gui-bench` calls `reset` and `act`."""

    greedy: bool = True
    """How `act` chooses: the most likely output (benchmarking), or a sample."""

    def reset(self, task_info: dict[str, Any]) -> None:
        super().reset(task_info)
        self._context = Context(str(task_info.get("instruction") or ""))

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> "str | Action":
        context = getattr(self, "_context", None) or Context(str(obs.get("instruction") or ""))
        chosen = self.generate(self.prompt(obs, context), greedy=self.greedy)
        self._context = dataclasses.replace(context, history=context.history + (chosen,))
        self.last_response = chosen.text
        return chosen.action
