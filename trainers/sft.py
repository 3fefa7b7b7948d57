"""Stage 0, supervised pretraining: behaviour cloning of an expert through the `TrainableAgent`
protocol, the stand-in for the papers' pretrained start (UI-TARS solves much of its RL tasks
before RL begins).

Demonstrations are (prompt, token ids) pairs: the prompt the policy builds for the expert's
observation and context, and the tokens by which the policy would say the expert's action
(`policy.expert_act`: the element policy's choice among its candidates, the VLM policy's UI-TARS
answer). `fit` minimizes their mean negative log-likelihood with Adam, under the same `logprobs`
the RL loss uses, so any trainable policy that can spell an action is pretrained by the same
code. `oracle_demonstrations` records the env's own solution
(``env.unwrapped.oracle_action()``) step by step.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from typing import Any, Sequence

import torch

from gui_gym.agents.base import Act, Context, TrainableAgent
from gui_gym.trainers.rollout import Rollout, Step

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Demonstration:
    prompt: Any
    token_ids: tuple[int, ...]


@dataclass
class SFTConfig:
    epochs: int = 3
    batch_steps: int = 32
    """Demonstration steps per gradient step."""
    learning_rate: float = 0.05
    seed: int = 0


def expert_rollout(env: Any, policy: TrainableAgent, task_id: str, seed: int,
                   plan: Sequence[str] | None = None) -> Rollout:
    """The oracle's episode on (task id, instance seed) (``env.unwrapped.oracle_action()``), as
    the policy would have produced it, as a `Rollout`: each step's prompt (conditioned on
    `plan` when given) and the policy's tokens for the oracle's action; log-probs are not
    known (0). BEPA's expert trajectory (its replacement baseline) and behaviour cloning's
    demonstrations. A step the policy cannot spell (its action is not among the policy's
    choices) ends the episode, with a warning."""
    obs, info = env.reset(seed=seed, options={"task_id": task_id, "instance_seed": seed})
    rollout = Rollout(task_id=task_id, seed=seed, instruction=str(info.get("instruction", "")), source="expert",
                      plan=tuple(plan) if plan is not None else None)
    history: list[Act] = []
    for _ in range(100):
        action = env.unwrapped.oracle_action()
        prompt = policy.prompt(obs, Context(rollout.instruction, rollout.plan, tuple(history)))
        act = policy.expert_act(prompt, action)
        if act is None:
            logger.warning("the policy cannot spell the oracle's %s in %s (seed %d); demonstration cut", action,
                           task_id, seed)
            break
        history.append(act)
        obs, reward, terminated, truncated, info = env.step(act.action)
        rollout.steps.append(Step(parsed_action=info.get("parsed_action"), action_error=info.get("action_error"),
                                  action=act.action, reward=float(reward), info=info, prompt=prompt, text=act.text,
                                  token_ids=act.token_ids, logprobs=(0.0,) * len(act.token_ids)))
        if terminated or truncated:
            break
    return rollout


def oracle_demonstrations(env: Any, policy: TrainableAgent, episodes: Sequence[tuple[str, int]],
                          plan_share: float = 0.0) -> list[Demonstration]:
    """The oracle's steps on each (task id, instance seed) (`expert_rollout`). A share
    `plan_share` of the episodes (every k-th) is acted on the env's expert plan
    (``expert_plan``), so that the policy learns from its input to follow a plan when it has
    one (BEPA's LEVEL-1 then measures what that learned skill is worth), not from a fixed bonus."""
    out: list[Demonstration] = []
    every = round(1 / plan_share) if plan_share > 0 else 0
    for k, (task_id, seed) in enumerate(episodes):
        plan = env.unwrapped.expert_plan(task_id, seed) if every and k % every == 0 else None
        out += [Demonstration(s.prompt, s.token_ids) for s in expert_rollout(env, policy, task_id, seed, plan).steps]
    return out


def fit(policy: TrainableAgent, demos: Sequence[Demonstration], cfg: SFTConfig) -> list[float]:
    """Behaviour cloning: minimize the mean NLL of the demonstrations' tokens; returns the mean
    loss of each epoch."""
    if not demos:
        raise ValueError("fit needs at least one demonstration")
    rng = random.Random(cfg.seed)
    params = [p for p in policy.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(params, lr=cfg.learning_rate)
    losses = []
    order = list(range(len(demos)))
    for _ in range(cfg.epochs):
        rng.shuffle(order)
        total = 0.0
        for at in range(0, len(order), cfg.batch_steps):
            batch = [demos[i] for i in order[at:at + cfg.batch_steps]]
            logp = policy.logprobs([d.prompt for d in batch], [d.token_ids for d in batch])
            loss = -torch.cat(logp).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(batch)
        losses.append(total / len(order))
    return losses
