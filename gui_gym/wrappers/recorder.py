"""`TrajectoryRecorder`: every episode written to disk while it runs, crash-safe.

`gui-bench` records through this wrapper, and user code can wrap any GUI env with it to get
the same folders. One episode is one folder, ``out_dir/<task_id>__seed<seed>/``:

- ``traj.jsonl``: line 0 is the reset (instruction, first screenshot), line n is step n:
  the action as given, the parsed action, reward, flags, the JSON-safe ``info``, the
  screenshot of the screen *after* the step, the url (web), the accessibility tree text
  (``a11y_tree``, when the env observes one), timings, and whatever the caller attached with
  `annotate` (the model's raw response, its thought, its prompt, the agent's time);
- ``step_0000.png`` (after the reset), ``step_0001.png`` (after step 1), ...; ``.webp``
  with ``image_format="webp"`` (lossless, about a third of the PNG: the harness's choice);
- ``result.json``: written last, when the episode ends (score, success, steps, error,
  timings). Its presence is what marks the episode complete, so a folder without it is an
  episode that was interrupted and must be run again.

Screenshots and ``result.json`` go to a temporary file that is then renamed, so a killed
process never leaves half a file under a final name. A screenshot the backend already holds
in the format written (the browser's own capture, ``last_observation.extra["png"]``) is
written as it is;
others are encoded on a background thread (Pillow releases the GIL while it compresses), so
recording costs the step loop little.
A ``reset`` on an existing folder clears the files a previous attempt left there.
"""

from __future__ import annotations

import io
import os
import queue
import re
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from gui_gym.records import (RESULT_FILE, TRAJECTORY_FILE, EpisodeResult, action_text, atomic_write, atomic_write_json,
                             episode_key, final_answer, json_safe, write_jsonl)

_OWN_FILES = re.compile(r"^(traj\.jsonl|result\.json|step_\d+\.(?:png|webp)|\..+\.tmp)$")
"""The files a recorded episode folder holds (cleared when an attempt starts again)."""
IMAGE_FORMATS = ("png", "webp")
WEBP_LOSSLESS = {"lossless": True, "method": 1, "quality": 50}
"""Lossless WebP at a low effort: about a third of a fast PNG for UI screens, the pixels
exact, ~50 ms of the writer thread's CPU for 1280x720."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class _ImageWriter:
    """Encodes and writes screenshots on one background thread, in order."""

    def __init__(self, image_format: str, compress_level: int):
        self.image_format = image_format
        self.compress_level = compress_level
        self._queue: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def put(self, path: Path, image: "np.ndarray | bytes") -> None:
        """Write `image` (an RGB array to encode, or bytes already encoded) to `path`."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="gui-gym-recorder", daemon=True)
            self._thread.start()
        self._queue.put((path, image))

    def flush(self) -> None:
        """Wait until every queued screenshot is on disk; re-raise a write failure."""
        self._queue.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        from PIL import Image

        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                path, image = item
                if not isinstance(image, bytes):
                    buffer = io.BytesIO()
                    if self.image_format == "webp":
                        Image.fromarray(image).save(buffer, format="WEBP", **WEBP_LOSSLESS)
                    else:
                        Image.fromarray(image).save(buffer, format="PNG", compress_level=self.compress_level)
                    image = buffer.getvalue()
                atomic_write(path, image)
            except Exception as exc:  # surfaced by the next flush()
                self._error = exc
            finally:
                self._queue.task_done()


class TrajectoryRecorder(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Record each episode of `env` under `out_dir` (layout in the module docstring).

    Adds ``info["trajectory_dir"]`` and ``info["screenshot_file"]``; the env's own keys pass
    through untouched. `result_extra` is merged into every ``result.json`` (a harness puts
    its attempt number there); `annotate` attaches fields to the next step's record.

    >>> import gymnasium as gym, gui_gym, tempfile
    >>> env = TrajectoryRecorder(gym.make("GUI/Demo-v0"), tempfile.mkdtemp())
    >>> obs, info = env.reset(seed=0, options={"task_id": "demo.read-code"})
    >>> info["trajectory_dir"].endswith("demo.read-code__seed0")
    True
    >>> env.close()

    Args:
        env: any env; GUI envs give screenshots, urls and task ids.
        out_dir: the folder that receives one sub-folder per episode.
        screenshots: write a screenshot per step.
        png_compress_level: zlib level 0-9; 1 is several times faster than the default 6
            for a file about twice as large.
        image_format: "png", or "webp" (lossless, about a third of the size; the encoding
            costs the writer thread ~50 ms per 1280x720 screen, where a browser's own PNG
            is written as it came).
    """

    def __init__(self, env: gym.Env, out_dir: str | os.PathLike, *, screenshots: bool = True,
                 png_compress_level: int = 1, image_format: str = "png"):
        if not isinstance(out_dir, (str, os.PathLike)):
            raise TypeError(f"out_dir must be a path, received {type(out_dir).__name__}")
        if not isinstance(png_compress_level, int) or not 0 <= png_compress_level <= 9:
            raise ValueError(f"png_compress_level must be an int in [0, 9], received {png_compress_level!r}")
        if image_format not in IMAGE_FORMATS:
            raise ValueError(f"image_format must be one of {IMAGE_FORMATS}, received {image_format!r}")
        gym.utils.RecordConstructorArgs.__init__(self, out_dir=os.fspath(out_dir), screenshots=screenshots,
                                                 png_compress_level=png_compress_level, image_format=image_format)
        gym.Wrapper.__init__(self, env)
        self.out_dir = Path(out_dir)
        self.screenshots = screenshots
        self.result_extra: dict[str, Any] = {}
        self.episode_dir: Path | None = None
        self.last_result: EpisodeResult | None = None
        self.image_format = image_format
        self._writer = _ImageWriter(image_format, png_compress_level)
        self._traj = None
        self._annotations: dict[str, Any] = {}
        self._episode: dict[str, Any] = {}

    def annotate(self, **fields: Any) -> None:
        """Attach `fields` (JSON-safe) to the record of the next step, e.g. the model's raw
        response, its thought and ``agent_time_s``."""
        self._annotations.update(fields)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._close_traj()
        self.episode_dir = None
        self._annotations = {}
        started, started_at = time.perf_counter(), _now()
        obs, info = self.env.reset(seed=seed, options=options)
        task_id = str(info.get("task_id", "episode"))
        self._open_episode(task_id, seed if seed is not None else info.get("seed"), started, started_at)
        self._episode.update(instance_seed=info.get("seed"), instruction=info.get("instruction"),
                             domain=info.get("domain"), reset_s=time.perf_counter() - started)
        shot = self._save_screenshot(obs, 0)
        self._write_line({"step": 0, "event": "reset", "task_id": task_id, "seed": self._episode["seed"],
                          "instruction": info.get("instruction"), "screenshot_file": shot,
                          "url": _url(obs), **_a11y(obs), "info": json_safe(info), "time": _now(),
                          "timings": {"reset_s": self._episode["reset_s"]}})
        return obs, self._with_paths(info, shot)

    def step(self, action: Any):
        if self._traj is None:
            raise gym.error.ResetNeeded("call reset() before step(): the recorded episode has ended or not begun")
        obs, reward, terminated, truncated, info = self.env.step(action)
        episode = self._episode
        episode["steps"] += 1
        step = episode["steps"]
        shot = self._save_screenshot(obs, step)
        annotations, self._annotations = self._annotations, {}
        episode["env_s"] += float(info.get("step_time_s") or 0.0)
        episode["agent_s"] += float(annotations.get("agent_time_s") or 0.0)
        self._write_line({
            "step": step, "action": action_text(action), "parsed_action": json_safe(info.get("parsed_action")),
            "action_error": info.get("action_error"), "reward": float(reward), "terminated": bool(terminated),
            "truncated": bool(truncated), "screenshot_file": shot, "url": _url(obs), **_a11y(obs),
            **json_safe(annotations), "info": json_safe(info), "time": _now(),
            "timings": {"step_s": info.get("step_time_s"), "settle_s": info.get("settle_time_s"),
                        "agent_s": annotations.get("agent_time_s")},
        })
        if terminated or truncated:
            infra_error = info.get("infra_error")
            self._finish(score=info.get("score"), success=bool(info.get("success")), terminated=bool(terminated),
                         truncated=bool(truncated), answer=final_answer(info.get("parsed_action")),
                         error=infra_error, error_kind="infra" if infra_error else None)
        return obs, reward, terminated, truncated, self._with_paths(info, shot)

    def record_error(self, message: str, kind: str = "error", *, task_id: str | None = None,
                     seed: int | None = None) -> EpisodeResult:
        """End the current episode as an error (an exception in the agent or the env) and
        write its ``result.json``. When no episode is open (the reset itself failed), name the
        episode with `task_id` and `seed`. Returns the result."""
        if self._traj is None:
            if task_id is None:
                raise ValueError("no episode is open: pass task_id= (and seed=) to name the one that failed")
            self._open_episode(task_id, seed, time.perf_counter(), _now())
        return self._finish(score=None, success=False, terminated=False, truncated=True, answer=None,
                            error=message, error_kind=kind)

    def close(self) -> None:
        try:
            self._close_traj()
            self._writer.close()
        finally:
            self.env.close()

    # ---- internals ----------------------------------------------------------------------

    def _open_episode(self, task_id: str, seed: int | None, started: float, started_at: str) -> None:
        folder = self.out_dir / episode_key(task_id, seed)
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.iterdir():
            if stale.is_file() and _OWN_FILES.match(stale.name):
                stale.unlink()
        self.episode_dir = folder
        self.last_result = None
        self._episode = {"task_id": task_id, "seed": seed, "instance_seed": None, "instruction": None,
                         "domain": None, "steps": 0, "env_s": 0.0, "agent_s": 0.0, "reset_s": None,
                         "started": started, "started_at": started_at}
        self._traj = open(folder / TRAJECTORY_FILE, "a", encoding="utf-8")

    def _save_screenshot(self, obs: Any, step: int) -> str | None:
        image = obs.get("screenshot") if isinstance(obs, dict) else None
        if not self.screenshots or not isinstance(image, np.ndarray) or self.episode_dir is None:
            return None
        name = f"step_{step:04d}.{self.image_format}"
        latest = getattr(self.env.unwrapped, "last_observation", None)
        encoded = getattr(latest, "extra", {}).get(self.image_format)
        if encoded is not None and np.array_equal(latest.screenshot, image):
            self._writer.put(self.episode_dir / name, encoded)  # the backend's own PNG: nothing to encode
        else:
            self._writer.put(self.episode_dir / name, image)
        return name

    def _write_line(self, record: dict[str, Any]) -> None:
        assert self._traj is not None
        write_jsonl(self._traj, record)

    def _finish(self, *, score: SupportsFloat | None, success: bool, terminated: bool, truncated: bool,
                answer: str | None, error: str | None, error_kind: str | None) -> EpisodeResult:
        assert self.episode_dir is not None
        self._writer.flush()  # every screenshot is on disk before the completion marker
        self._close_traj()
        episode = self._episode
        steps = episode["steps"]
        total_s = time.perf_counter() - episode["started"]
        data = {
            "task_id": episode["task_id"], "seed": episode["seed"], "instance_seed": episode["instance_seed"],
            "instruction": episode["instruction"], "domain": episode["domain"],
            "score": None if score is None else float(score), "success": success, "steps": steps,
            "terminated": terminated, "truncated": truncated, "final_answer": answer,
            "error": error, "error_kind": error_kind,
            "timings": {"reset_s": episode["reset_s"], "env_s": episode["env_s"], "agent_s": episode["agent_s"],
                        "total_s": total_s, "mean_step_s": episode["env_s"] / steps if steps else None},
            "started_at": episode["started_at"], "finished_at": _now(),
            **self.result_extra,
        }
        result = EpisodeResult.from_dict(json_safe(data), f"the result of {self.episode_dir}")
        atomic_write_json(self.episode_dir / RESULT_FILE, result.to_dict())
        self.last_result = result
        return result

    def _close_traj(self) -> None:
        if self._traj is not None:
            self._traj.close()
            self._traj = None

    def _with_paths(self, info: dict[str, Any], shot: str | None) -> dict[str, Any]:
        return {**info, "trajectory_dir": str(self.episode_dir), "screenshot_file": shot}


def _url(obs: Any) -> str | None:
    return obs.get("url") if isinstance(obs, dict) else None


def _a11y(obs: Any) -> dict[str, str]:
    """The observation's accessibility tree text as a record field, when it has one."""
    tree = obs.get("a11y_tree") if isinstance(obs, dict) else None
    return {"a11y_tree": tree} if isinstance(tree, str) else {}
