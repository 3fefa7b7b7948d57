"""VLC metrics (OSWorld's ``vlc.py``): the player's status XML (from its HTTP interface),
its ``vlcrc`` settings, window and screen sizes, and videos compared frame by frame by
perceptual hash (frames decoded by the ``ffmpeg`` command; OSWorld uses OpenCV's bundled
FFmpeg, so frames are the same up to colour-conversion rounding, which the hash absorbs).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse
from xml.etree import ElementTree

import numpy as np
from PIL import Image

from gui_gym.errors import MissingResourceError
from gui_gym.suites.osworld.metrics.similarity import hash_distance, phash

logger = logging.getLogger(__name__)

FILE_FIELDS = ("filename", "title", "uri", "location", "name")
URL_PATHS = ('information/category[@name="meta"]/info[@name="url"]',
             'information/category[@name="meta"]/info[@name="URI"]',
             'information/category[@name="meta"]/info[@name="location"]',
             'information/category[@name="meta"]/info[@name="title"]',
             'information/category[@name="meta"]/info[@name="filename"]',
             'information/category[@name="Stream 0"]/info[@name="Codec"]',
             'information/category[@name="Stream 0"]/info[@name="Type"]',
             'information/category[@name="Stream 0"]/info[@name="Language"]')


def _first_text(tree: ElementTree.Element, paths: Any) -> str | None:
    for path in paths:
        element = tree.find(path)
        if element is not None and element.text:
            return element.text
    return None


def is_vlc_playing(result: Any, rule: dict[str, Any]) -> float:
    """VLC's status says ``playing``, and the item is the expected file (by name, path end,
    or path component) or URL (contained, a same-host URL with the path, or the bare file
    name VLC shows for streams)."""
    with open(result, "rb") as handle:
        tree = ElementTree.fromstring(handle.read().decode("utf-8"))
    if tree.find("state").text != "playing":
        return 0.0
    if rule["type"] == "file_name":
        info = _first_text(tree, (f'information/category[@name="meta"]/info[@name="{f}"]' for f in FILE_FIELDS))
        if not info:
            return 0.0
        wanted = rule["file_name"]
        return float(os.path.basename(info) == wanted or info.endswith(wanted)
                     or (wanted in info and (info.endswith("/" + wanted) or info.endswith("\\" + wanted))))
    if rule["type"] == "url":
        info = _first_text(tree, URL_PATHS)
        if not info:
            return 0.0
        wanted = rule["url"]
        if wanted in info or info.endswith(wanted):
            return 1.0
        try:
            expected_url = urlparse(wanted)
            if info == os.path.basename(expected_url.path):
                return 1.0
            if "://" in info:
                actual_url = urlparse(info)
                if expected_url.netloc == actual_url.netloc and expected_url.path in actual_url.path:
                    return 1.0
        except ValueError:
            pass
        return 0.0
    logger.info("is_vlc_playing: unknown rule type %r", rule["type"])
    return 0.0


def _vlcrc(path: Any) -> str:
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8")


def _setting(text: str, marker: str, default: str) -> str:
    """The value after the last ``=`` of the last line containing `marker` (commented lines
    count, as in OSWorld), else `default`."""
    value = default
    for line in text.split("\n"):
        if marker in line:
            value = line.split("=")[-1].strip()
    return value


def is_vlc_recordings_folder(result: Any, rule: dict[str, str]) -> float:
    """The first uncommented ``input-record-path`` setting is ``rule["recording_file_path"]``."""
    for line in _vlcrc(result).split("\n"):
        if line.startswith("#") or not line.strip():
            continue
        if "input-record-path" in line:
            return float(line.split("=")[-1].strip() == rule["recording_file_path"])
    return 0.0


def is_vlc_fullscreen(result: Any, expected: Any) -> float:
    """The VLC window (its size) covers the screen (its size)."""
    if expected is None or result is None:
        return 0.0
    return float(result["width"] == expected["width"] and result["height"] == expected["height"])


def _expected(rule: dict[str, Any], key: str) -> Any:
    value = rule[key]
    return str(value) if isinstance(value, int) else value


def check_qt_bgcone(result: Any, rule: dict[str, Any]) -> float:
    return float(_setting(_vlcrc(result), "qt-bgcone=", "1") == _expected(rule, "expected_qt_bgcone"))


def check_qt_max_volume(result: Any, rule: dict[str, Any]) -> float:
    return float(_setting(_vlcrc(result), "qt-max-volume=", "125") == _expected(rule, "expected_qt_max_volume"))


def check_qt_minimal_view(result: Any, rule: dict[str, Any]) -> float:
    return float(_setting(_vlcrc(result), "qt-minimal-view=", "0") == _expected(rule, "expected_qt_minimal_view"))


def check_play_and_exit(result: Any, rule: dict[str, Any]) -> float:
    """``play-and-exit`` (default 0) is the expected value. Not in desktop-env 1.0.2; written
    as OSWorld's sibling checks are."""
    return float(_setting(_vlcrc(result), "play-and-exit=", "0") == _expected(rule, "expected_play_and_exit"))


def check_one_instance_when_started_from_file(result: Any, rule: dict[str, Any]) -> float:
    return float(_setting(_vlcrc(result), "one-instance-when-started-from-file=", "1")
                 == _expected(rule, "expected_one_instance_when_started_from_file"))


def check_global_key_play_pause(result: Any, rule: dict[str, Any]) -> float:
    """The global play/pause hotkey is set ("1") or not ("0"), as the expected value says."""
    text = _vlcrc(result)
    state = "0"
    for line in text.split("\n"):
        if "global-key-play-pause=" in line:
            state = "0" if line.split("=")[-1].strip() == "" else "1"
    return float(state == _expected(rule, "expected_global_key_play_pause"))


def check_qt_slider_colours(result: Any, rule: dict[str, Any]) -> float | None:
    """``qt-slider-colours`` equals the expected string (``type: match``) or is all dark
    (``blackish``: every colour's channels below 100)."""
    colours = _setting(_vlcrc(result), "qt-slider-colours", "153;210;153;20;210;20;255;199;15;245;39;29")
    try:
        if rule["type"] == "match":
            return float(colours == rule["expected_qt_slider_colours"])
        if rule["type"] == "blackish":
            values = [int(x) for x in colours.split(";")]
            return float(all(all(v < 100 for v in rgb) for rgb in zip(values[0::3], values[1::3], values[2::3])))
    except Exception as exc:  # noqa: BLE001 - OSWorld scores an unreadable setting 0
        logger.info("check_qt_slider_colours: %s", exc)
        return 0.0
    return None


def _frames(path: Any, limit: int) -> Iterator[Image.Image]:
    """The first `limit` frames of a video as RGB images; none when it cannot be decoded.
    ffmpeg writes them as PPM, each with its size in its header: no ffprobe run first (a
    second process start per video, as long as the decoding of a short one)."""
    if not path or not os.path.isfile(path):
        return
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise MissingResourceError("compare_videos needs ffmpeg (Debian: apt-get install ffmpeg)")
    with subprocess.Popen([ffmpeg, "-v", "error", "-i", str(path), "-map", "0:v:0", "-frames:v", str(limit),
                           "-f", "image2pipe", "-c:v", "ppm", "-pix_fmt", "rgb24", "-"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL) as decoder:
        try:
            while (frame := _ppm_frame(decoder.stdout)) is not None:
                yield frame
        finally:
            decoder.kill()


def _ppm_frame(stream: Any) -> Image.Image | None:
    """The next frame of ffmpeg's PPM stream (``P6\\n<width> <height>\\n255\\n``, then the
    RGB bytes); None at its end."""
    if stream.readline() != b"P6\n":
        return None
    size, depth = stream.readline().split(), stream.readline()
    if len(size) != 2 or depth != b"255\n":
        return None
    width, height = int(size[0]), int(size[1])
    data = stream.read(width * height * 3)
    if len(data) < width * height * 3:
        return None
    return Image.fromarray(np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3))


def compare_videos(result: Any, expected: Any, max_frames_to_check: int = 100, threshold: int = 5) -> float:
    """The first frames agree by perceptual hash (more than `threshold` frames differing by
    more than `threshold` bits score 0), and the videos end together if one ends within
    them (two videos that cannot be read end together: 1)."""
    first = _frames(result, max_frames_to_check)
    second = _frames(expected, max_frames_to_check)
    mismatches = 0
    for _ in range(max_frames_to_check):
        a, b = next(first, None), next(second, None)
        if a is None or b is None:
            return float((a is None) == (b is None))
        if hash_distance(phash(a), phash(b)) > threshold:
            mismatches += 1
            if mismatches > threshold:
                return 0.0
    return 1.0
