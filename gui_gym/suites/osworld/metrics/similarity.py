"""Image similarity as OSWorld computes it, with numpy alone (no scikit-image, scipy or
ImageHash): the structural similarity index of ``skimage.metrics.structural_similarity``
with its defaults (a 7x7 uniform window with reflected edges, sample covariance, K1 = 0.01,
K2 = 0.03, the data range of the integer type, the mean over the window-cropped map and over
channels), and ImageHash's ``phash`` (the 8x8 low frequencies of the 32x32 greyscale DCT
against their median) with the Hamming distance."""

from __future__ import annotations

import numpy as np
from PIL import Image

K1, K2 = 0.01, 0.03


def _uniform(values: np.ndarray, size: int) -> np.ndarray:
    """Mean over a size x size window, edges reflected (scipy's ``uniform_filter``)."""
    pad = size // 2
    out = values
    for axis in (0, 1):
        width = [(0, 0), (0, 0)]
        width[axis] = (pad, size - 1 - pad)
        padded = np.pad(out, width, mode="symmetric")
        cumulative = np.cumsum(padded, axis=axis, dtype=np.float64)
        zero = np.zeros_like(np.take(cumulative, [0], axis=axis))
        cumulative = np.concatenate([zero, cumulative], axis=axis)
        n = out.shape[axis]
        out = (np.take(cumulative, np.arange(size, size + n), axis=axis)
               - np.take(cumulative, np.arange(0, n), axis=axis)) / size
    return out


def _ssim_channel(x: np.ndarray, y: np.ndarray, win_size: int, data_range: float) -> float:
    ux, uy = _uniform(x, win_size), _uniform(y, win_size)
    uxx, uyy, uxy = _uniform(x * x, win_size), _uniform(y * y, win_size), _uniform(x * y, win_size)
    points = win_size ** 2
    norm = points / (points - 1)
    vx, vy, vxy = norm * (uxx - ux * ux), norm * (uyy - uy * uy), norm * (uxy - ux * uy)
    c1, c2 = (K1 * data_range) ** 2, (K2 * data_range) ** 2
    s = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux ** 2 + uy ** 2 + c1) * (vx + vy + c2))
    pad = (win_size - 1) // 2
    return float(s[pad:s.shape[0] - pad, pad:s.shape[1] - pad].mean(dtype=np.float64))


def ssim(a: np.ndarray, b: np.ndarray, win_size: int = 7) -> float:
    """Mean structural similarity of two integer images of one shape (H x W, or H x W x C
    with channels last)."""
    if a.shape != b.shape:
        raise ValueError(f"images of different shapes: {a.shape} and {b.shape}")
    if a.dtype != b.dtype or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"integer images of one type expected, received {a.dtype} and {b.dtype}")
    if win_size % 2 == 0 or any(side < win_size for side in a.shape[:2]):
        raise ValueError(f"win_size {win_size} must be odd and fit in the image ({a.shape[:2]})")
    info = np.iinfo(a.dtype)
    data_range = float(info.max) - float(info.min)
    x, y = a.astype(np.float64), b.astype(np.float64)
    if x.ndim == 2:
        return _ssim_channel(x, y, win_size, data_range)
    return float(np.mean([_ssim_channel(x[..., c], y[..., c], win_size, data_range) for c in range(x.shape[-1])]))


def _dct_matrix(n: int) -> np.ndarray:
    """scipy.fftpack's DCT-II (no normalisation): y[k] = 2 sum x[i] cos(pi k (2i + 1) / 2n)."""
    k, i = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    return 2 * np.cos(np.pi * k * (2 * i + 1) / (2 * n))


def phash(image: Image.Image, hash_size: int = 8, highfreq_factor: int = 4) -> np.ndarray:
    """ImageHash's perceptual hash, as a boolean hash_size x hash_size array."""
    size = hash_size * highfreq_factor
    pixels = np.asarray(image.convert("L").resize((size, size), Image.Resampling.LANCZOS), dtype=np.float64)
    matrix = _dct_matrix(size)
    low = (matrix @ pixels @ matrix.T)[:hash_size, :hash_size]
    return low > np.median(low)


def hash_distance(a: np.ndarray, b: np.ndarray) -> int:
    """ImageHash's ``hash1 - hash2``: the number of differing bits."""
    return int(np.count_nonzero(a.flatten() != b.flatten()))
