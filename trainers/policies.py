"""The policy protocol the trainers speak, and what a policy hands back for each step.

A policy turns an observation and its `Context` (the instruction, an optional plan, the
episode's own earlier outputs) into a *prompt*, and a prompt into an `Act`: the action for
the env, the tokens it generated and their log-probs. It also recomputes the log-probs of
given tokens under its current weights, with gradients: that is all the GRPO, PAGE and BEPA
losses need. Building the prompt is separate from acting so that BEPA can act on a
plan-conditioned prompt and keep the plain one for training.

Two policies: `VLMPolicy` (`trainers.policies_vlm`: Qwen2.5-VL-family checkpoints with UI-TARS
prompts) and `ElementPolicy` (`trainers.policies_element`: a small torch network scoring the
candidate actions of the accessibility tree). `make_policy` builds either by name; torch is
imported by the policies, not by this module.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Protocol, Sequence, runtime_checkable

from gui_gym.actions import Action

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class Act:
    """One step of a policy: `action` goes to the env (an `Action`, or text in the policy's
    `action_format`); `token_ids` are the tokens the policy generated and `logprobs` their
    log-probs when sampled; `detail` is the policy's own record of the choice (the element
    policy keeps the chosen candidate), read back when it builds later prompts."""

    action: Action | str
    text: str
    token_ids: tuple[int, ...]
    logprobs: tuple[float, ...]
    detail: Any = None


@dataclass(frozen=True)
class Context:
    """What a policy conditions on besides the observation."""

    instruction: str
    plan: tuple[str, ...] | None = None
    """BEPA LEVEL-1: the expert plan, one step per line; None for plain rollouts."""
    history: tuple[Act, ...] = ()
    """The policy's own earlier steps of this episode, oldest first."""

    @property
    def step(self) -> int:
        return len(self.history)

    def without_plan(self) -> "Context":
        return dataclasses.replace(self, plan=None)


@runtime_checkable
class Policy(Protocol):
    """What rollouts and updates call. Prompts are opaque to the trainers: whatever the
    policy needs to act and to recompute log-probs. Optional: ``after_update()``, called
    after each update (a policy generating on a server pushes its new weights there), and
    ``entropies(prompts, token_ids)``, like `logprobs` but the entropy of the distribution
    each token was drawn from (the trainers' `entropy_coef` bonus needs it; `ElementPolicy`
    has it)."""

    action_format: str
    """The env action format of string actions ("json" when the policy returns `Action`s)."""

    def prompt(self, obs: Mapping[str, Any], context: Context) -> Any:
        """The policy's input for this step."""
        ...

    def act(self, prompt: Any, *, greedy: bool = False) -> Act:
        """Sample (or, greedy, take the most likely) output for `prompt`."""
        ...

    def logprobs(self, prompts: Sequence[Any], token_ids: Sequence[Sequence[int]]) -> list["torch.Tensor"]:
        """Per prompt, the 1-D tensor of log-probs of `token_ids` under the current weights
        (differentiable)."""
        ...

    def parameters(self) -> Iterator["torch.nn.Parameter"]:
        """The trainable parameters."""
        ...

    def reference(self) -> "Policy":
        """A frozen copy of the current weights (the KL term's reference)."""
        ...

    def save(self, folder: str) -> None:
        """Write the trainable weights to `folder`."""
        ...

    def load(self, folder: str) -> None:
        """Read weights written by `save`."""
        ...


POLICIES = ("element", "vlm")


def make_policy(name: str, **kwargs: Any) -> Policy:
    """``element`` -> `ElementPolicy(**kwargs)`; ``vlm`` -> `VLMPolicy(**kwargs)` (needs
    ``model_path``)."""
    if name == "element":
        from trainers.policies_element import ElementPolicy

        return ElementPolicy(**kwargs)
    if name == "vlm":
        from trainers.policies_vlm import VLMPolicy

        return VLMPolicy(**kwargs)
    raise ValueError(f"unknown policy {name!r}; expected one of {POLICIES}")
