"""MMBench-GUI offline levels (`gui_gym.suites.mmbench`) as Gymnasium envs:
``GUI/MMBench-GUI-L1-v0`` (content understanding: a screenshot, a question, lettered options)
and ``GUI/MMBench-GUI-L2-v0`` (element grounding: a screenshot and an instruction; point at the
element), both one-step episodes on the static backend, scored and broken down as the
official code does.

The L2 env also reads ScreenSpot, ScreenSpot-v2 and ScreenSpot-Pro (``format=``), so one
grounding env covers the four sets. Data comes from a local folder in the official layout
(``data_root=`` or an environment variable, see docs/mmbench.md); ``data_root="sample"``
runs a small sample bundled with gui-gym, generated from LocalWeb pages by
``python -m gui_gym.benchmarks.samples.mmbench``.

>>> import gymnasium as gym, gui_gym
>>> env = gym.make("GUI/MMBench-GUI-L2-v0", data_root="sample")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step("(12, 34)")
>>> terminated
True
>>> env.close()
"""

from __future__ import annotations

import os
from typing import Any

from gui_gym.backends.static import StaticBackend
from gui_gym.env import GUIEnv
from gui_gym.suites.mmbench.answers import ANSWER_MODES
from gui_gym.suites.mmbench.data import load_l1, load_l2
from gui_gym.suites.mmbench.screenspot import load_screenspot, load_screenspot_pro
from gui_gym.suites.mmbench.tasks import AnswerSpace, CurrentLetters, click_space, l1_suite, l2_suite

L1_MODES = ("all", "easy", "medium", "hard")
L2_MODES = ("all", "basic", "advanced")
GROUNDING_FORMATS = ("mmbench", "screenspot", "screenspot_v2", "screenspot_pro")


def make_l1_env(data_root: str | os.PathLike[str] | None = None, mode: str = "all", answers: str = "meant",
                cache_size: int = 8, **kwargs: Any):
    """Entry point of ``GUI/MMBench-GUI-L1-v0``.

    Args:
        data_root: the folder holding ``MMBench-GUI/`` (or that folder itself), or
            ``"sample"``; default ``$GUI_GYM_MMBENCH_ROOT``, then ``$LMUData``.
        mode: "all" questions, or one difficulty ("easy", "medium", "hard"), as officially.
        answers: "meant" (default): the letter the answer carries (the content of a UI-TARS
            ``finished(content=...)``); "official": MMBench-GUI's parser over the whole
            output, as the official numbers are made (it reads "A" from a UI-TARS
            ``Action:`` line), with its NaN level score where a platform lacks a difficulty.
            The report says which was used. "official" needs the "choice" action format.
        cache_size: decoded screenshots kept in memory.
        kwargs: `GUIEnv` arguments; ``action_format`` defaults to ``"choice"`` (free text
            naming a letter, an answer action, or UI-TARS ``finished(content=...)``).
    """
    if mode not in L1_MODES:
        raise ValueError(f"mode must be one of {L1_MODES}, received {mode!r}")
    if answers not in ANSWER_MODES:
        raise ValueError(f"answers must be one of {ANSWER_MODES}, received {answers!r}")
    kwargs.setdefault("action_format", "choice")
    if answers == "official" and kwargs["action_format"] != "choice":
        raise ValueError(f"answers='official' reads the whole output text, which only the 'choice' action format keeps; "
                         f"received action_format={kwargs['action_format']!r}")
    if kwargs["action_format"] == "choice":
        kwargs["format_context"] = {**(kwargs.get("format_context") or {}), "answers": answers}
    questions = [q for q in load_l1(data_root) if mode in ("all", q.difficulty)]
    env = GUIEnv(StaticBackend(cache_size=cache_size), l1_suite(questions, answers=answers), **kwargs)
    env.action_space = AnswerSpace(env.action_space.screen_size, env.action_format, CurrentLetters(env),
                                   env.format_context)
    return env


def make_l2_env(data_root: str | os.PathLike[str] | None = None, format: str = "mmbench", mode: str = "all",
                cache_size: int = 8, **kwargs: Any):
    """Entry point of ``GUI/MMBench-GUI-L2-v0``; also ScreenSpot, -v2 and -Pro.

    Args:
        data_root: the data folder (see docs/mmbench.md for each format's layout), or
            ``"sample"`` (MMBench-GUI format only); default: the format's environment variable.
        format: "mmbench" (L2_annotations.json, [x1,y1,x2,y2] normalized or pixels),
            "screenspot" / "screenspot_v2" ([x,y,w,h] pixels), "screenspot_pro"
            ([x1,y1,x2,y2] pixels).
        mode: "all", or one grounding type ("basic", "advanced"; MMBench-GUI only).
        cache_size: decoded screenshots kept in memory.
        kwargs: `GUIEnv` arguments; ``action_format`` defaults to ``"point"`` (a JSON click,
            UI-TARS, or a bare "(x,y)"), and ``format_context={"coordinates": ...}`` names the
            space of bare numbers: "auto" (official: both <= 1 normalized, else pixels),
            "absolute", "normalized", "relative1000", "smart_resize".
    """
    if format not in GROUNDING_FORMATS:
        raise ValueError(f"format must be one of {GROUNDING_FORMATS}, received {format!r}")
    if mode not in L2_MODES or (mode != "all" and format != "mmbench"):
        allowed = L2_MODES if format == "mmbench" else ("all",)
        raise ValueError(f"mode must be one of {allowed} for format {format!r}, received {mode!r}")
    if format == "mmbench":
        targets = [t for t in load_l2(data_root) if mode in ("all", t.grounding_type)]
    elif format == "screenspot_pro":
        targets = load_screenspot_pro(data_root)
    else:
        targets = load_screenspot(data_root, format)
    kwargs.setdefault("action_format", "point")
    name = "mmbench-l2" if format == "mmbench" else format.replace("_", "-")
    env = GUIEnv(StaticBackend(cache_size=cache_size), l2_suite(targets, name), **kwargs)
    env.action_space = click_space(env.action_space.screen_size, env.action_format, env.format_context)
    return env
