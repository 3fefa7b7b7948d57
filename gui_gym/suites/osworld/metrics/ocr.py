"""Text in an image, for ``compare_image_text``.

OSWorld reads it with EasyOCR (``easyocr.Reader(['en']).readtext``, the texts joined by
spaces). EasyOCR needs PyTorch and downloads its models on first use, so it is not a
dependency of gui-gym: when it is installed it is used, exactly as OSWorld does; otherwise the
Tesseract command (Debian's ``tesseract-ocr``, installed by the set-up) reads the image, a
documented difference (its words can differ from EasyOCR's on the same image). Screen dumps
in X11's XWD format (what ``xwd`` writes) are converted to PNG first, as OSWorld does.
"""

from __future__ import annotations

import importlib.util
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

from gui_gym.errors import MissingResourceError

TESSERACT_TIMEOUT_S = 120.0
XWD_VERSION = 7


def read_xwd(path: str | Path) -> Image.Image:
    """An X11 window dump (XWD version 7, ZPixmap, 24/32 bits per pixel) as an RGB image."""
    data = Path(path).read_bytes()
    fields = struct.unpack(">25I", data[:100])
    header_size, version, width, height = fields[0], fields[1], fields[4], fields[5]
    byte_order, bits_per_pixel, bytes_per_line, ncolors = fields[7], fields[11], fields[12], fields[19]
    if version != XWD_VERSION or bits_per_pixel not in (24, 32):
        raise ValueError(f"unsupported XWD image (version {version}, {bits_per_pixel} bits per pixel)")
    start = header_size + 12 * ncolors
    step = bits_per_pixel // 8
    rows = np.frombuffer(data[start:start + bytes_per_line * height], dtype=np.uint8).reshape(height, bytes_per_line)
    pixels = rows[:, :width * step].reshape(height, width, step)
    rgb = pixels[:, :, [2, 1, 0]] if byte_order == 0 else pixels[:, :, -3:]  # LSB first: B, G, R(, A)
    return Image.fromarray(np.ascontiguousarray(rgb), "RGB")


def is_xwd(path: str | Path) -> bool:
    head = Path(path).read_bytes()[:8]
    return len(head) == 8 and struct.unpack(">I", head[4:8])[0] == XWD_VERSION


def image_text(path: str | Path) -> str:
    """The words OCR finds in the image, joined by spaces."""
    with tempfile.TemporaryDirectory(prefix="gui-gym-ocr-") as folder:
        source = Path(path)
        if is_xwd(source):
            converted = Path(folder) / "image.png"
            read_xwd(source).save(converted)
            source = converted
        else:
            try:
                with Image.open(source) as image:
                    image.verify()
            except UnidentifiedImageError as exc:
                raise ValueError(f"{path} is not an image") from exc
        if importlib.util.find_spec("easyocr") is not None:
            import easyocr

            return " ".join(entry[1] for entry in easyocr.Reader(["en"]).readtext(str(source)))
        tesseract = shutil.which("tesseract")
        if tesseract is None:
            raise MissingResourceError("compare_image_text needs OCR: install easyocr (as OSWorld uses) or the "
                                       "tesseract command (Debian: apt-get install tesseract-ocr)")
        done = subprocess.run([tesseract, str(source), "stdout"], capture_output=True, text=True,
                              timeout=TESSERACT_TIMEOUT_S, check=True)
        return " ".join(done.stdout.split())
