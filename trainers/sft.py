"""Stage 0, supervised pretraining: behaviour cloning of an expert through the `TrainableAgent`
protocol, the stand-in for the papers' pretrained start (UI-TARS solves much of its RL tasks
before RL begins).

Demonstrations are (prompt, token ids) pairs: the prompt the policy builds for the expert's
observation and context, and the tokens by which the policy would say the expert's action
(`policy.expert_tokens`). `fit` minimizes their mean negative log-likelihood with Adam, under
the same `logprobs` the RL loss uses, so any trainable policy that can spell an action is
pretrained by the same code. `oracle_demonstrations` records the env's own solution
(``env.unwrapped.oracle_action()``) step by step.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from typing import Any, Sequence

import torch

from agents.base import Act, Context, TrainableAgent

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


def oracle_demonstrations(env: Any, policy: TrainableAgent, episodes: Sequence[tuple[str, int]]) -> list[Demonstration]:
    """The oracle's steps on each (task id, instance seed), as the policy would have produced
    them. A step the policy cannot spell (its action is not among the policy's choices) ends
    that episode's demonstration, with a warning."""
    out: list[Demonstration] = []
    for task_id, seed in episodes:
        obs, info = env.reset(seed=seed, options={"task_id": task_id, "instance_seed": seed})
        history: list[Act] = []
        for _ in range(100):
            action = env.unwrapped.oracle_action()
            prompt = policy.prompt(obs, Context(str(info.get("instruction", "")), None, tuple(history)))
            act = policy.expert_act(prompt, action)
            if act is None:
                logger.warning("the policy cannot spell the oracle's %s in %s (seed %d); demonstration cut", action,
                               task_id, seed)
                break
            out.append(Demonstration(prompt, act.token_ids))
            history.append(act)
            obs, _, terminated, truncated, _ = env.step(act.action)
            if terminated or truncated:
                break
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
