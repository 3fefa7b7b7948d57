"""What a training run leaves behind: its metrics (a jsonl file, plus TensorBoard and wandb
when they are installed and asked for) and its checkpoints, in one run folder.

The metrics' names, and the record the loop logs per iteration, are `gui_gym.trainers.metrics`'s.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import time
from pathlib import Path
from typing import Any

import torch

from gui_gym.records import append_jsonl

logger = logging.getLogger(__name__)


class RunLog:
    """Appends one JSON line per iteration to ``<run_dir>/metrics.jsonl`` (when a folder is
    given) and mirrors scalars to TensorBoard (`tensorboard=True` and the package installed)
    and wandb (`wandb_project` set and the package installed)."""

    def __init__(self, run_dir: str | Path | None, config: Any = None, *, tensorboard: bool = True,
                 wandb_project: str | None = None):
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self.records: list[dict[str, Any]] = []
        self._writer = None
        self._wandb = None
        self._started = time.monotonic()
        if self.run_dir is None:
            return
        self.run_dir.mkdir(parents=True, exist_ok=True)
        if config is not None:
            (self.run_dir / "config.json").write_text(json.dumps(to_plain(config), indent=2, sort_keys=True))
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:  # the train extra brings it; the jsonl file is the record either way
                logger.warning("tensorboard is not installed: this run's scalars go to %s only "
                               "(pip install 'gui-gym[train]' or tensorboard to mirror them)", self.run_dir / "metrics.jsonl")
            else:
                self._writer = SummaryWriter(str(self.run_dir / "tensorboard"))
        if wandb_project:
            try:
                import wandb
            except ImportError as exc:
                raise ImportError(f"wandb_project={wandb_project!r} needs wandb: pip install wandb") from exc
            self._wandb = wandb.init(project=wandb_project, dir=str(self.run_dir), config=to_plain(config))

    def write_branched_group(self, record: dict[str, Any]) -> None:
        """Append a branched group's tree (`gui_gym.trainers.branching.tree_record`) to
        ``<run_dir>/branched_groups.jsonl``, which `gui_gym.benchmarks.learning.group_tree` draws."""
        if self.run_dir is not None:
            append_jsonl(self.run_dir / "branched_groups.jsonl", record, sort_keys=True)

    def log(self, step: int, metrics: dict[str, Any]) -> dict[str, Any]:
        """Log one iteration's `metrics` (`gui_gym.trainers.metrics.IterationStats.record`)
        under `step`, with the seconds since the run began; returns the record."""
        record = {"iteration": step, "time_s": round(time.monotonic() - self._started, 3), **metrics}
        self.records.append(record)
        if self.run_dir is not None:
            append_jsonl(self.run_dir / "metrics.jsonl", record, sort_keys=True)
        scalars = {k: v for k, v in record.items() if isinstance(v, (int, float)) and math.isfinite(v)}
        if self._writer is not None:
            for key, value in scalars.items():
                self._writer.add_scalar(key, value, step)
        if self._wandb is not None:
            self._wandb.log(scalars, step=step)
        return record

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._wandb is not None:
            self._wandb.finish()
            self._wandb = None


def save_checkpoint(folder: str | Path, policy: Any, optimizer: torch.optim.Optimizer, state: dict[str, Any]) -> Path:
    """Policy weights (the policy's own `save`), optimizer state and the trainer's `state`
    (iteration, episodes, RNG seeds) in `folder`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    policy.save(str(folder))
    torch.save(optimizer.state_dict(), folder / "optimizer.pt")
    (folder / "trainer.json").write_text(json.dumps(to_plain(state), indent=2, sort_keys=True))
    return folder


def load_checkpoint(folder: str | Path, policy: Any, optimizer: torch.optim.Optimizer | None = None) -> dict[str, Any]:
    """Restore what `save_checkpoint` wrote; returns the trainer's state."""
    folder = Path(folder)
    if not (folder / "trainer.json").is_file():
        raise FileNotFoundError(f"no checkpoint in {folder}: expected trainer.json written by save_checkpoint")
    policy.load(str(folder))
    if optimizer is not None:
        optimizer.load_state_dict(torch.load(folder / "optimizer.pt", weights_only=True))
    return json.loads((folder / "trainer.json").read_text())


def to_plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)
