"""`ElementPolicy`: a small torch policy over the accessibility tree, which learns LocalWeb
tasks on a CPU in minutes.

Each step lists the page's candidate actions (`candidates`). A small network scores every
candidate from hashed features of (instruction, plan, element, page, history) plus a few
dense text-match features, and one candidate is drawn from the softmax of the scores: one
step is one "token", the index of the chosen candidate.

The network starts from a prior on the dense features (`PRIOR`: prefer what the task's text
names, follow a plan's next line, submit after typing, do not repeat an action, untick a box
or stop at once), the stand-in for a pretrained model's common sense: plan-conditioned
rollouts (BEPA LEVEL-1) often succeed with it, while plain rollouts of long tasks almost
never do. Every other weight starts at zero (the hidden layer's output too), so the untrained
policy is exactly the prior.
"""

from __future__ import annotations

import copy
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import torch
from torch import nn

from gui_gym.agents.base import Act, Context, PolicyAgent
from gui_gym.agents.policies.element.candidates import (Candidate, candidates_of, content_words, instruction_strings, ranks_of,
                                                words)
from gui_gym.a11y_text import parse_elements

DENSE = ("name_in_instruction", "instruction_overlap", "text_near_name", "plan_next", "plan_here", "plan_any", "repeats",
         "unchecks", "submits", "appends", "field_typed_before", "text_typed_before", "is_done")
PRIOR = {"name_in_instruction": 0.75, "instruction_overlap": 0.75, "text_near_name": 1.5, "plan_next": 4.0,
         "plan_here": 1.0, "plan_any": 0.5, "repeats": -3.0, "unchecks": -3.0, "submits": 2.0, "appends": -2.0,
         "field_typed_before": -1.5, "text_typed_before": -1.0, "is_done": -1.5}
"""The starting weights of the dense features (the rest start at 0). The plan features
follow a cursor through the plan: the line the last action matched (`plan_here`) and the
one after it (`plan_next`)."""

@dataclass(frozen=True)
class ElementPrompt:
    """A step's candidates and their features: hashed feature ids (flat, with per-candidate
    offsets, for an `EmbeddingBag`) and dense features, one row per candidate."""

    candidates: tuple[Candidate, ...]
    ids: np.ndarray
    offsets: np.ndarray
    dense: np.ndarray


class ElementPolicy(PolicyAgent, nn.Module):
    """Scores candidate actions of the a11y tree (a `TrainableAgent`); envs are made with
    ``observe_a11y=True``.

    Args:
        buckets: size of the hashed feature table.
        hidden: width of the scoring network's hidden layer (0: a linear scorer).
        temperature: softmax temperature of sampling and of the log-probs.
        prior_scale: multiplies the starting weights of `PRIOR` (0: a uniform policy).
        max_strings: strings drawn from the instruction per step.
        greedy: how `act` (``gui-bench``) chooses: the most likely candidate, or a sample.
        checkpoint: a folder `save` wrote (a ``gui-train`` checkpoint) to start from.
    """

    action_format = "json"
    observe_a11y = True

    TRAINER_DEFAULTS = {"learning_rate": 1e-2}
    """What ``gui-train --policy element`` trains with unless told otherwise: a step size for
    this small model of hashed features (a VLM's defaults are its own)."""

    def __init__(self, buckets: int = 1 << 16, hidden: int = 32, temperature: float = 1.0, prior_scale: float = 3.0,
                 max_strings: int = 12, greedy: bool = True, checkpoint: str | None = None):
        super().__init__()
        if buckets < 2 or hidden < 0 or temperature <= 0 or max_strings < 0:
            raise ValueError(f"expected buckets >= 2, hidden >= 0, temperature > 0 and max_strings >= 0, received "
                             f"{buckets}, {hidden}, {temperature}, {max_strings}")
        self.buckets, self.temperature, self.max_strings = buckets, float(temperature), max_strings
        self.linear = nn.EmbeddingBag(buckets, 1, mode="sum", padding_idx=0)
        nn.init.zeros_(self.linear.weight)
        self.prior = nn.Linear(len(DENSE), 1, bias=False)
        with torch.no_grad():
            self.prior.weight.copy_(torch.tensor([[prior_scale * PRIOR.get(name, 0.0) for name in DENSE]]))
        self.hidden = hidden
        if hidden:
            self.embed = nn.EmbeddingBag(buckets, hidden, mode="sum", padding_idx=0)
            nn.init.normal_(self.embed.weight, std=0.1)
            self.mlp = nn.Sequential(nn.Tanh(), nn.Linear(hidden, 1))
            nn.init.zeros_(self.mlp[1].weight)
            nn.init.zeros_(self.mlp[1].bias)
        self.greedy = bool(greedy)
        if checkpoint is not None:
            self.load(checkpoint)

    # ---- the TrainableAgent protocol ------------------------------------------------------

    def prompt(self, obs: Mapping[str, Any], context: Context) -> ElementPrompt:
        tree = obs.get("a11y_tree")
        if not isinstance(tree, str):
            raise ValueError("ElementPolicy reads obs['a11y_tree']: make the env with observe_a11y=True")
        elements = parse_elements(tree)
        strings = instruction_strings(context.instruction, self.max_strings)
        candidates = candidates_of(elements, strings)
        features = _StepFeatures(context, str(obs.get("url", "")))
        rows = [features.of(c, rank) for c, rank in zip(candidates, ranks_of(candidates))]
        ids = [np.asarray([self._bucket(f) for f in names], dtype=np.int64) for names, _ in rows]
        offsets = np.cumsum([0] + [len(i) for i in ids[:-1]]).astype(np.int64)
        return ElementPrompt(tuple(candidates), np.concatenate(ids), offsets,
                             np.asarray([dense for _, dense in rows], dtype=np.float32))

    def generate(self, prompt: ElementPrompt, *, greedy: bool = False) -> Act:
        with torch.no_grad():
            logp = torch.log_softmax(self._scores(prompt) / self.temperature, dim=0)
        index = int(logp.argmax()) if greedy else int(torch.multinomial(logp.exp(), 1))
        chosen = prompt.candidates[index]
        return Act(chosen.to_action(), chosen.describe(), (index,), (float(logp[index]),), chosen)

    def expert_act(self, prompt: ElementPrompt, action: Any) -> Act | None:
        """The `Act` by which this policy takes an expert's `action` (`gui_gym.trainers.sft`): the
        candidate whose action it is, or None when the page offers no such candidate."""
        for index, chosen in enumerate(prompt.candidates):
            if chosen.to_action() == action:
                return Act(chosen.to_action(), chosen.describe(), (index,), (0.0,), chosen)
        return None

    def logprobs(self, prompts: Sequence[ElementPrompt], token_ids: Sequence[Sequence[int]]) -> list[torch.Tensor]:
        return [logp[list(tokens)] for logp, tokens in zip(self._log_softmax(prompts, token_ids), token_ids)]

    def entropies(self, prompts: Sequence[ElementPrompt], token_ids: Sequence[Sequence[int]]) -> list[torch.Tensor]:
        """Per prompt, the entropy of the candidate distribution, once per token (one step is
        one token), with gradients."""
        return [-(logp.exp() * logp).sum().expand(len(tokens))
                for logp, tokens in zip(self._log_softmax(prompts, token_ids), token_ids)]

    def reference(self) -> "ElementPolicy":
        frozen = copy.deepcopy(self)
        frozen.requires_grad_(False)
        return frozen

    def save(self, folder: str) -> None:
        Path(folder).mkdir(parents=True, exist_ok=True)
        torch.save(self.state_dict(), Path(folder) / "element_policy.pt")

    def load(self, folder: str) -> None:
        self.load_state_dict(torch.load(Path(folder) / "element_policy.pt", weights_only=True))

    # ---- internals ------------------------------------------------------------------------

    def _log_softmax(self, prompts: Sequence[ElementPrompt], token_ids: Sequence[Sequence[int]]) -> list[torch.Tensor]:
        """Per prompt, the log-softmax over its candidates (one forward pass for all), after
        checking that `token_ids` index candidates."""
        if len(prompts) != len(token_ids):
            raise ValueError(f"expected one token list per prompt, received {len(token_ids)} for {len(prompts)}")
        if not prompts:
            return []
        sizes = [len(p.candidates) for p in prompts]
        scores = self._scores(_concat(prompts)) / self.temperature
        out = []
        for chunk, tokens in zip(torch.split(scores, sizes), token_ids):
            if any(not 0 <= t < len(chunk) for t in tokens):
                raise ValueError(f"token ids {list(tokens)} outside the {len(chunk)} candidates of the prompt")
            out.append(torch.log_softmax(chunk, dim=0))
        return out

    def _bucket(self, feature: str) -> int:
        return 1 + zlib.crc32(feature.encode()) % (self.buckets - 1)

    def _scores(self, prompt: ElementPrompt) -> torch.Tensor:
        ids, offsets = torch.from_numpy(prompt.ids), torch.from_numpy(prompt.offsets)
        scores = self.linear(ids, offsets).squeeze(-1) + self.prior(torch.from_numpy(prompt.dense)).squeeze(-1)
        if self.hidden:
            scores = scores + self.mlp(self.embed(ids, offsets)).squeeze(-1)
        return scores


class _StepFeatures:
    """Feature names and dense values of one step's candidates."""

    def __init__(self, context: Context, url: str):
        self.step = min(context.step, 30)
        self.instruction_text = context.instruction
        self.instruction = " ".join(words(context.instruction))
        self.instruction_words = set(content_words(context.instruction))
        self.plan_text = tuple(context.plan or ())
        self.plan = [set(content_words(line)) for line in self.plan_text]
        parts = urlsplit(url)
        self.page = [s for s in parts.path.split("/") if s and not any(ch.isdigit() for ch in s)][:3]
        self.page += [f"?{key}" for key, _ in parse_qsl(parts.query)][:3]
        self.history = [act.detail for act in context.history if isinstance(act.detail, Candidate)]
        self.cursor = -1
        for done in self.history:
            self.cursor = _advance(self.cursor, _action_words(done), self.plan)
        last = self.history[-1] if self.history else None
        self.last = (last.kind, last.element.role if last and last.element else "-") if last else ("start", "-")
        self.last_words = _letters(last.element.name)[:2] if last and last.element else []
        self.typed = {c.text for c in self.history if c.kind == "type"}
        self.typed_fields = {(c.element.role, c.element.name) for c in self.history if c.kind == "type"}

    def of(self, c: Candidate, rank: int) -> tuple[list[str], list[float]]:
        role = c.element.role if c.element else "-"
        name = c.element.name if c.element else ""
        kr = f"{c.kind}:{role}"
        names = [f"k:{c.kind}", f"kr:{kr}", f"t:{self.step}|kr:{kr}", f"l:{self.last[0]}:{self.last[1]}|kr:{kr}",
                 f"r:{rank}|kr:{kr}", f"r:{rank}|l:{self.last[0]}:{self.last[1]}|kr:{kr}"]
        label = _letters(name)[:6]
        names += [f"w:{c.kind}:{w}" for w in label]
        names += [f"t:{self.step}|w:{w}" for w in label[:3]]
        names += [f"lw:{lw}|w:{w}" for lw in self.last_words for w in label[:3]]
        for page in self.page:
            names += [f"u:{page}|kr:{kr}", f"u:{page}|r:{rank}|kr:{kr}"] + [f"u:{page}|w:{w}" for w in label[:3]]
        if c.element is not None:
            names += [f"f:{role}:{flag}" for flag in c.element.flags]
        if c.kind == "type":
            position = self.instruction_text.find(c.text)
            before = words(self.instruction_text[:position])[-1:] if position > 0 else []
            names += [f"s:{_shape(c.text)}|fw:{w}" for w in label[:3]]
            names += [f"sc:{b}|fw:{w}" for b in before for w in label[:3]]
            names += [f"t:{self.step}|s:{_shape(c.text)}"]
        key = " ".join(content_words(name)) if c.kind == "click" else ""
        name_words = set(content_words(name)) if c.kind == "click" else set()
        action_words = _action_words(c)
        plan = self.plan
        dense = {
            "name_in_instruction": float(bool(key) and f" {key} " in f" {self.instruction} "),
            "instruction_overlap": len(name_words & self.instruction_words) / len(name_words) if name_words else 0.0,
            "text_near_name": float(c.kind == "type" and any(_near(c.text, c.element.name, text)
                                                             for text in (self.instruction_text, *self.plan_text))),
            "plan_next": _overlap(action_words, plan[self.cursor + 1]) if self.cursor + 1 < len(plan) else 0.0,
            "plan_here": _overlap(action_words, plan[self.cursor]) if self.cursor >= 0 else 0.0,
            "plan_any": max((_overlap(action_words, line) for line in plan), default=0.0),
            "repeats": float(min(3, sum(1 for h in self.history if h.key == c.key))),
            "unchecks": float(c.kind == "click" and "checked" in c.element.flags),
            "submits": float(c.kind == "enter" and self.last[0] == "type"),
            "appends": float(c.kind == "type" and role != "combobox" and bool(c.element.value)),
            "field_typed_before": float(c.kind == "type" and (role, name) in self.typed_fields),
            "text_typed_before": float(c.kind == "type" and c.text in self.typed),
            "is_done": float(c.kind == "done"),
        }
        return names, [dense[name] for name in DENSE]


def _near(text: str, field: str, sentence: str, window: int = 3) -> bool:
    """Whether a word of the field's name occurs within `window` words of `text` in
    `sentence` ("the Editor role" puts "Editor" near the field "Role")."""
    position = sentence.find(text)
    if position < 0:
        return False
    before = words(sentence[:position])[-window:]
    after = words(sentence[position + len(text):])[:window]
    return bool(set(content_words(field)) & set(before + after))


def _action_words(c: Candidate) -> tuple[set[str], str]:
    """What a candidate is about, for matching plan lines: the words of its element's name
    and of the text it types, and its element's role (which may match too: "tick the
    checkbox")."""
    if c.element is None:
        return set(), ""
    return {*content_words(c.element.name), *content_words(c.text or "")}, c.element.role


def _overlap(action: tuple[set[str], str], line: set[str]) -> float:
    """How well an action matches a plan line: the F1 of their shared words (the role
    counts as shared when the line names it, never against the action)."""
    words_, role = action
    shared = len(words_ & line) + (role in line)
    if not shared or not words_ or not line:
        return 0.0
    precision, recall = min(1.0, shared / len(words_)), shared / len(line)
    return 2 * precision * recall / (precision + recall)


def _advance(cursor: int, action: tuple[set[str], str], plan: Sequence[set[str]]) -> int:
    """The plan line an action worked on: the best match among the current line and the two
    after it (the earliest on a tie); the cursor stays when none matches."""
    window = range(max(cursor, 0), min(cursor + 3, len(plan)))
    best = max(window, key=lambda i: (_overlap(action, plan[i]), -i), default=cursor)
    return best if best != cursor and _overlap(action, plan[best]) > 0 else cursor


def _concat(prompts: Sequence[ElementPrompt]) -> ElementPrompt:
    """Several prompts as one, for a single forward pass."""
    shifts = np.cumsum([0] + [len(p.ids) for p in prompts[:-1]])
    return ElementPrompt(tuple(c for p in prompts for c in p.candidates), np.concatenate([p.ids for p in prompts]),
                         np.concatenate([p.offsets + s for p, s in zip(prompts, shifts)]),
                         np.concatenate([p.dense for p in prompts]))


def _letters(text: str) -> list[str]:
    return [w for w in content_words(text) if w.isalpha()]


def _shape(text: str) -> str:
    if "@" in text:
        return "email"
    if re.fullmatch(r"\$?\d+(?:[.,]\d+)*", text):
        return f"number{min(len(re.sub(r'[^0-9]', '', text)), 6)}"
    if re.search(r"\d:\d", text):
        return "time"
    if re.search(r"\d", text):
        return "mixed"
    return f"words{min(len(text.split()), 4)}"
