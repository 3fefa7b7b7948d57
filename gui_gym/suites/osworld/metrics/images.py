"""Image metrics (GIMP tasks, OSWorld's ``gimp.py``, and ``vlc.py::compare_images``) with
Pillow and numpy: pixel identity, brightness, saturation and contrast changes with the
structure kept (mean squared error, or the structural similarity of `similarity.ssim` with
OSWorld's thresholds), sizes, mirroring, palettes, positions, GIMP's configuration files.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np
from PIL import Image, ImageChops, ImageStat

from gui_gym.suites.osworld.metrics.similarity import ssim

logger = logging.getLogger(__name__)


def _structure_by_mse(a: Image.Image, b: Image.Image, threshold: float = 0.03) -> bool:
    """Mean squared difference (channels scaled to [0, 1], float32) below the threshold,
    after resizing `a` to `b` and both to RGB."""
    if a.size != b.size:
        a = a.resize(b.size, Image.Resampling.LANCZOS)
    a, b = (image if image.mode == "RGB" else image.convert("RGB") for image in (a, b))
    mse = np.mean((np.array(a, dtype=np.float32) / 255 - np.array(b, dtype=np.float32) / 255) ** 2)
    return bool(mse < threshold)


def _ssim_window(array: np.ndarray) -> int | None:
    """OSWorld's window: 7, or the largest odd size that fits a smaller image."""
    side = min(array.shape[0], array.shape[1])
    if side >= 7:
        return 7
    window = side if side % 2 == 1 else side - 1
    return window if window >= 1 else None


def _structure_by_ssim(a: Image.Image, b: Image.Image, threshold: float = 0.9) -> bool:
    """Structural similarity of the RGB images at least `threshold`; images smaller than
    7 pixels, or of different sizes, are not similar."""
    if min(a.width, a.height, b.width, b.height) < 7:
        return False
    a, b = (image if image.mode == "RGB" else image.convert("RGB") for image in (a, b))
    if a.size != b.size:
        return False
    first, second = np.array(a), np.array(b)
    window = _ssim_window(first)
    if window is None:
        return False
    try:
        return ssim(first, second, win_size=window) >= threshold
    except ValueError as exc:
        logger.info("structural similarity failed: %s", exc)
        return False


def _brightness(image: Image.Image) -> float:
    return ImageStat.Stat(image.convert("L")).mean[0]


def _normalize_brightness(image: Image.Image, target: float) -> Image.Image:
    factor = target / _brightness(image)
    return image.point(lambda x: min(255, max(0, int(x * factor))))


def compare_image_list(result: Any, expected: Any) -> float:
    """Every result image has exactly the expected pixels (resized to the expected size and
    converted to its mode first)."""
    if not isinstance(result, list):
        result, expected = [result], [expected]
    for pred, gold in zip(result, expected):
        if not pred or not gold:
            return 0.0
        a, b = Image.open(pred), Image.open(gold)
        if a.size != b.size:
            a = a.resize(b.size, Image.Resampling.LANCZOS)
        if a.mode != b.mode:
            a = a.convert(b.mode)
        if ImageChops.difference(a, b).getbbox():
            return 0.0
    return 1.0


def check_brightness_decrease_and_structure_sim(result: Any, expected: Any, threshold: float = 0.03) -> float:
    """The result is darker than the original, and with both brightened to 128 their
    difference is small (mean squared error below `threshold`)."""
    if result is None or expected is None:
        return 0.0
    src, tgt = Image.open(result), Image.open(expected)
    darker = _brightness(tgt) > _brightness(src)
    same = _structure_by_mse(_normalize_brightness(src, 128), _normalize_brightness(tgt, 128), threshold)
    return float(darker and same)


def check_saturation_increase_and_structure_sim(result: Any, expected: Any) -> float:
    """The result is more saturated than the original, with similar hue and value channels."""
    if result is None or expected is None:
        return 0.0
    src, tgt = Image.open(result).convert("HSV"), Image.open(expected).convert("HSV")
    more = np.mean(np.array(tgt.split()[1])) < np.mean(np.array(src.split()[1]))
    (h1, _, v1), (h2, _, v2) = src.split(), tgt.split()
    return float(more and _structure_by_ssim(h1, h2) and _structure_by_ssim(v1, v2))


def check_file_exists_and_structure_sim(result: Any, expected: Any) -> float:
    if result is None or expected is None or not os.path.isfile(result):
        return 0.0
    return float(_structure_by_ssim(Image.open(result), Image.open(expected)))


def check_triangle_position(result: Any) -> float:
    """The pixels of the image's second least frequent colour have their centroid within 5%
    of the image's centre (OSWorld takes that colour for the triangle's)."""
    if result is None:
        return 0.0
    pixels = np.array(Image.open(result))
    colors, counts = np.unique(pixels.reshape(-1, pixels.shape[2]), axis=0, return_counts=True)
    triangle = colors[np.argsort(counts)][1]
    centroid = np.argwhere(np.all(pixels == triangle, axis=2)).mean(axis=0)
    shape = np.array(pixels.shape[:2])
    return float(np.all(np.abs(centroid - shape / 2) < 0.05 * shape))


def check_structure_sim(result: Any, expected: Any) -> float:
    if result is None or expected is None:
        return 0.0
    try:
        src, tgt = Image.open(result), Image.open(expected)
        if src.size != tgt.size:
            return 0.0
        return float(_structure_by_ssim(src, tgt))
    except Exception as exc:  # noqa: BLE001 - OSWorld scores an unreadable image 0 here
        logger.info("check_structure_sim: %s", exc)
        return 0.0


def check_structure_sim_with_threshold(result: Any, expected: Any, **options: Any) -> float:
    """Structural similarity at least ``ssim_threshold`` (default 0.85), the result resized
    to the expected size first (LANCZOS); errors score 0."""
    if result is None or expected is None:
        return 0.0
    threshold = options.get("ssim_threshold", 0.85)
    try:
        src, tgt = Image.open(result), Image.open(expected)
        if src.size != tgt.size:
            src = src.resize(tgt.size, Image.Resampling.LANCZOS)
        src, tgt = (image if image.mode == "RGB" else image.convert("RGB") for image in (src, tgt))
        first, second = np.array(src), np.array(tgt)
        window = _ssim_window(first)
        if window is None:
            return 0.0
        return float(ssim(first, second, win_size=window) >= threshold)
    except Exception as exc:  # noqa: BLE001 - OSWorld scores any failure here 0
        logger.info("check_structure_sim_with_threshold: %s", exc)
        return 0.0


def _without_transparency(image: Image.Image) -> Image.Image | None:
    """The bounding box of the non-transparent pixels (None: all transparent)."""
    if image.mode != "RGBA":
        image = image.convert("RGBA")
    box = image.split()[-1].getbbox()
    return None if box is None else image.crop(box)


def check_structure_sim_resized(result: Any, expected: Any) -> float:
    """Structurally similar once the result (its non-transparent part, when it has
    transparency) is resized to the expected size."""
    if result is None or expected is None:
        return 0.0
    src, tgt = Image.open(result), Image.open(expected)
    if src.mode in ("RGBA", "LA") or "transparency" in src.info:
        content = _without_transparency(src)
        if content is None:
            return 0.0
        src = content.convert("RGB").resize(tgt.size)
    else:
        src = src.resize(tgt.size)
    if tgt.mode != "RGB":
        tgt = tgt.convert("RGB")
    return float(_structure_by_ssim(src, tgt))


def check_contrast_increase_and_structure_sim(result: Any, expected: Any) -> float:
    """The result's pixel standard deviation is higher than the original's and their
    structural similarity is at least 0.65."""
    if result is None or expected is None:
        return 0.0
    src, tgt = Image.open(result), Image.open(expected)
    higher = np.std(np.asarray(tgt, dtype=np.float32)) < np.std(np.asarray(src, dtype=np.float32))
    return float(higher and _structure_by_ssim(src, tgt, threshold=0.65))


def check_config_status(result: Any, rule: dict[str, Any]) -> float:
    """A line ``(key ... value)`` of a GIMP configuration file (``gimprc``, ``sessionrc``)
    has ``rule["key"]`` (one word, or the first two) first and ``rule["value"]`` last."""
    if result is None:
        return 0.0
    with open(result) as handle:
        lines = handle.readlines()
    key, value = rule["key"], rule["value"]
    for line in lines:
        if line.startswith("#") or line == "\n":
            continue
        items = line.strip().lstrip("(").rstrip(")\n").split()
        if isinstance(key, str):
            if items[0] == key and items[-1] == value:
                return 1.0
        elif isinstance(key, list) and len(key) == 2:
            if items[0] == key[0] and items[1] == key[1] and items[-1] == value:
                return 1.0
    return 0.0


def check_image_size(result: Any, rule: dict[str, Any]) -> float:
    """The image's width and/or height equal the rule's; with ``ignore_transparent`` (or any
    transparency information, as OSWorld's condition reads) the size of the non-transparent
    part is measured."""
    if result is None:
        return 0.0
    image = Image.open(result)
    if rule.get("ignore_transparent", False) and image.mode in ("RGBA", "LA") or "transparency" in image.info:
        content = _without_transparency(image)
        width, height = (0, 0) if content is None else content.size
    else:
        width, height = image.size
    return float((rule.get("height") is None or height == rule["height"])
                 and (rule.get("width") is None or width == rule["width"]))


def check_palette_and_structure_sim(result: Any, expected: Any) -> float:
    """The result is a palette ("P" mode) image, structurally like the original."""
    if result is None or expected is None:
        return 0.0
    try:
        if not os.path.exists(result) or os.path.getsize(result) == 0:
            return 0.0
        src = Image.open(result)
        src.load()
        if not os.path.exists(expected) or os.path.getsize(expected) == 0:
            return 0.0
        tgt = Image.open(expected)
        tgt.load()
    except Exception as exc:  # noqa: BLE001 - OSWorld scores an image it cannot open 0
        logger.info("check_palette_and_structure_sim: %s", exc)
        return 0.0
    try:
        return float(src.mode == "P" and _structure_by_ssim(src.convert("RGB"), tgt))
    except Exception as exc:  # noqa: BLE001 - as OSWorld
        logger.info("check_palette_and_structure_sim: %s", exc)
        return 0.0


def check_textbox_on_leftside(result: Any) -> float:
    """The leftmost dark pixel (grey < 128) lies in the left 5% of the image."""
    if result is None:
        return 0.0
    image = Image.open(result)
    dark = np.asarray(image.convert("L")) < 128
    width = image.size[0]
    rows = dark.any(axis=1)
    leftmost = int(dark[rows].argmax(axis=1).min()) if rows.any() else width
    return float(leftmost < width * 0.05)


def check_image_mirror(result: Any, expected: Any) -> float:
    """The original mirrored left-right is structurally the result (similarity >= 0.99)."""
    if result is None or expected is None:
        return 0.0
    mirrored = Image.open(result).transpose(Image.FLIP_LEFT_RIGHT)
    return float(_structure_by_ssim(mirrored, Image.open(expected), 0.99))


def check_green_background(result: Any, expected: Any) -> float:
    """Where the reference image is not black the result is green (G above R and B).
    OSWorld indexes the pixel arrays as [x, y], so for an image wider than tall it reaches
    past the rows, and its evaluation fails, unless a failing pixel comes first; this
    reproduces that order."""
    if result is None or expected is None:
        return 0.0
    source_image, target_image = Image.open(result), Image.open(expected)
    source, target = np.array(source_image), np.array(target_image)
    width, height = target_image.width, target_image.height
    if target.ndim != 3:
        raise TypeError("OSWorld compares the first three channels of each pixel")
    for x in range(width):
        row = target[x]
        reach = min(height, row.shape[0])
        coloured = np.flatnonzero(np.any(row[:reach, :3] != 0, axis=1))
        if coloured.size:
            src_row = source[x]
            inside = coloured < src_row.shape[0]
            checked = coloured[inside] if inside.all() else coloured[:np.argmin(inside)]
            r, g, b = (src_row[checked, c] for c in range(3))
            failing = np.flatnonzero(~((g > r) & (g > b)))
            if failing.size:
                return 0.0
            if not inside.all():
                raise IndexError("source pixel out of range")
        if reach < height:
            raise IndexError("target pixel out of range")
    return 1.0


def check_image_file_size(result: Any, rule: dict[str, Any]) -> float:
    if result is None:
        return 0.0
    return float(os.path.getsize(result) < rule["max_size"])


def compare_images(result: Any, expected: Any, **options: Any) -> float:
    """Structural similarity of the greyscale images, both resized (LANCZOS) to the smaller
    size (by tuple order); with ``reference_base_result`` rescaled above it (0 at or below
    it plus 0.01)."""
    if not result or not expected:
        return 0.0
    base = options.get("reference_base_result")
    first, second = Image.open(result).convert("L"), Image.open(expected).convert("L")
    size = min(first.size, second.size)
    score = ssim(np.array(first.resize(size, Image.Resampling.LANCZOS)),
                 np.array(second.resize(size, Image.Resampling.LANCZOS)))
    if base is None:
        return score
    return (score - base) / (1 - base) if score >= base + 0.01 else 0.0
