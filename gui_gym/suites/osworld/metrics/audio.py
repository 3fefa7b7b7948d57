"""Audio metrics (OSWorld's ``vlc.py::compare_audios`` and ``others.py::check_mp3_meta``)
without librosa: files decoded by soundfile (libsndfile, MP3 included), resampled by soxr,
features computed with numpy in librosa's order and precision.

``compare_audios`` follows OSWorld step by step: ``librosa.load`` (mono, 22050 Hz, soxr's
high quality), 20 MFCCs (``librosa.feature.mfcc``: 2048-sample Hann frames every 512,
centred with zero padding, power spectrum, 128 Slaney mel bands, power to dB with an 80 dB
floor, orthonormal DCT-II), each coefficient scaled by its largest magnitude
(``librosa.util.normalize(axis=1)``), then FastDTW (radius 1) on the frames with the
cosine distance, and ``exp(-distance / path length)``. Rounding differs from librosa's in
the last float32 bits (the DCT is a float64 matrix product here), so scores agree with
OSWorld's to about 1e-8.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from gui_gym.suites.osworld.metrics.common import match_value, require

logger = logging.getLogger(__name__)

SAMPLE_RATE = 22050
N_FFT, HOP, N_MELS, N_MFCC = 2048, 512, 128, 20
TOP_DB, AMIN = 80.0, 1e-10


def load_audio(path: Any) -> np.ndarray:
    """``librosa.load(path)``: float32 mono samples at 22050 Hz."""
    soundfile = require("soundfile", "soundfile", "compare_audios")
    with soundfile.SoundFile(path) as handle:
        rate = handle.samplerate
        samples = handle.read(frames=-1, dtype="float32", always_2d=False).T
    if not np.all(np.isfinite(samples)):
        raise ValueError(f"{path}: audio is not finite")
    if samples.ndim > 1:
        samples = np.mean(samples, axis=0)
    if rate == SAMPLE_RATE:
        return samples
    soxr = require("soxr", "soxr", "compare_audios")
    size = int(np.ceil(samples.shape[-1] * (float(SAMPLE_RATE) / rate)))
    resampled = soxr.resample(samples, rate, SAMPLE_RATE, quality="soxr_hq")
    fixed = np.zeros(size, dtype=samples.dtype)
    fixed[:min(size, resampled.shape[-1])] = resampled[:size]
    return np.asarray(fixed, dtype=samples.dtype)


def _hann(n: int) -> np.ndarray:
    """scipy's periodic Hann window, computed as scipy computes it."""
    fac = np.linspace(-np.pi, np.pi, n + 1)
    window = np.zeros(n + 1)
    for k, a in enumerate((0.5, 0.5)):
        window += a * np.cos(k * fac)
    return window[:-1]


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    hz = np.asanyarray(hz, dtype=float)
    sp, log_hz = 200.0 / 3, 1000.0
    mels = hz / sp
    log_mel, step = log_hz / sp, np.log(6.4) / 27.0
    if mels.ndim:
        high = hz >= log_hz
        mels[high] = log_mel + np.log(hz[high] / log_hz) / step
    elif hz >= log_hz:
        mels = log_mel + np.log(hz / log_hz) / step
    return mels


def _mel_to_hz(mels: np.ndarray) -> np.ndarray:
    sp, log_hz = 200.0 / 3, 1000.0
    log_mel, step = log_hz / sp, np.log(6.4) / 27.0
    hz = sp * mels
    high = mels >= log_mel
    hz[high] = log_hz * np.exp(step * (mels[high] - log_mel))
    return hz


def mel_filters(rate: int = SAMPLE_RATE, n_fft: int = N_FFT, n_mels: int = N_MELS) -> np.ndarray:
    """``librosa.filters.mel`` (Slaney scale and area normalisation, float32)."""
    weights = np.zeros((n_mels, 1 + n_fft // 2), dtype=np.float32)
    freqs = np.fft.rfftfreq(n=n_fft, d=1.0 / rate)
    mel_f = _mel_to_hz(np.linspace(_hz_to_mel(0.0), _hz_to_mel(rate / 2.0), n_mels + 2))
    fdiff = np.diff(mel_f)
    ramps = np.subtract.outer(mel_f, freqs)
    for i in range(n_mels):
        weights[i] = np.maximum(0, np.minimum(-ramps[i] / fdiff[i], ramps[i + 2] / fdiff[i + 1]))
    weights *= (2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels]))[:, np.newaxis]
    return weights


def _dct_ortho(n: int) -> np.ndarray:
    """The orthonormal DCT-II matrix."""
    k, i = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    matrix = np.cos(np.pi * k * (2 * i + 1) / (2 * n)) * np.sqrt(2.0 / n)
    matrix[0] /= np.sqrt(2.0)
    return matrix


def mfcc(samples: np.ndarray) -> np.ndarray:
    """``librosa.feature.mfcc(y=samples, sr=22050)``: 20 x frames, float32."""
    padded = np.pad(samples, (N_FFT // 2, N_FFT // 2), mode="constant")
    frames = np.lib.stride_tricks.sliding_window_view(padded, N_FFT)[::HOP].T
    spectrum = np.fft.rfft(_hann(N_FFT)[:, np.newaxis] * frames, axis=0).astype(np.complex64)
    power = np.abs(spectrum) ** 2.0
    mel = np.einsum("ft,mf->mt", power, mel_filters(), optimize=True)
    db = 10.0 * np.log10(np.maximum(AMIN, mel))
    db -= 10.0 * np.log10(np.maximum(AMIN, np.abs(1.0)))
    db = np.maximum(db, db.max() - TOP_DB)
    return (_dct_ortho(N_MELS) @ db.astype(np.float64)).astype(np.float32)[:N_MFCC]


def normalize_rows(features: np.ndarray) -> np.ndarray:
    """``librosa.util.normalize(features, axis=1)``: each row over its largest magnitude."""
    length = np.max(np.abs(features).astype(float), axis=1, keepdims=True)
    length[length < np.finfo(features.dtype).tiny] = 1.0
    out = np.empty_like(features)
    out[:] = features / length
    return out


def cosine_distance(u: np.ndarray, v: np.ndarray) -> float:
    """scipy's ``cosine``: 1 - u.v / sqrt(u.u v.v), clipped to [0, 2]."""
    return float(np.clip(1.0 - np.dot(u, v) / math.sqrt(np.dot(u, u) * np.dot(v, v)), 0.0, 2.0))


def _dtw(x: np.ndarray, y: np.ndarray, window: list[tuple[int, int]] | None,
         dist: Callable[[np.ndarray, np.ndarray], float]) -> tuple[float, list[tuple[int, int]]]:
    """Dynamic time warping over the cells of `window` (all when None); ties go to the
    earlier of (up, left, diagonal), as in ``fastdtw``."""
    cells = window if window is not None else [(i, j) for i in range(len(x)) for j in range(len(y))]
    table: dict[tuple[int, int], tuple[float, int, int]] = {(0, 0): (0.0, 0, 0)}
    infinite = (math.inf, 0, 0)
    for i, j in ((a + 1, b + 1) for a, b in cells):
        step = dist(x[i - 1], y[j - 1])
        table[i, j] = min((table.get((i - 1, j), infinite)[0] + step, i - 1, j),
                          (table.get((i, j - 1), infinite)[0] + step, i, j - 1),
                          (table.get((i - 1, j - 1), infinite)[0] + step, i - 1, j - 1), key=lambda c: c[0])
    path = []
    i, j = len(x), len(y)
    while not (i == j == 0):
        path.append((i - 1, j - 1))
        i, j = table[i, j][1], table[i, j][2]
    path.reverse()
    return table[len(x), len(y)][0], path


def _expand_window(path: list[tuple[int, int]], len_x: int, len_y: int, radius: int) -> list[tuple[int, int]]:
    near = set(path)
    for i, j in path:
        near.update((i + a, j + b) for a in range(-radius, radius + 1) for b in range(-radius, radius + 1))
    doubled = {(2 * i + a, 2 * j + b) for i, j in near for a in (0, 1) for b in (0, 1)}
    window, start = [], 0
    for i in range(len_x):
        new_start = None
        for j in range(start, len_y):
            if (i, j) in doubled:
                window.append((i, j))
                if new_start is None:
                    new_start = j
            elif new_start is not None:
                break
        start = new_start
    return window


def fastdtw(x: np.ndarray, y: np.ndarray, dist: Callable[[np.ndarray, np.ndarray], float],
            radius: int = 1) -> tuple[float, list[tuple[int, int]]]:
    """Salvador and Chan's FastDTW, as the ``fastdtw`` package computes it (float64 inputs)."""
    x, y = np.asanyarray(x, dtype=float), np.asanyarray(y, dtype=float)
    if len(x) < radius + 2 or len(y) < radius + 2:
        return _dtw(x, y, None, dist)
    half_x = np.array([(x[i] + x[i + 1]) / 2 for i in range(0, len(x) - len(x) % 2, 2)])
    half_y = np.array([(y[i] + y[i + 1]) / 2 for i in range(0, len(y) - len(y) % 2, 2)])
    _, path = fastdtw(half_x, half_y, dist, radius)
    return _dtw(x, y, _expand_window(path, len(x), len(y), radius), dist)


def compare_audios(result: Any, expected: Any) -> float:
    """Similarity in [0, 1] of two recordings (see the module docstring). Two unreadable or
    empty files are alike (1); one of them is not (0)."""
    if not result or not expected:
        return 0.0
    loaded = []
    for path in (result, expected):
        try:
            loaded.append(load_audio(path))
        except Exception as exc:  # noqa: BLE001 - OSWorld treats an unreadable file as empty
            logger.info("compare_audios: cannot read %s: %s", path, exc)
            loaded.append(None)
    bad = [y is None or y.shape[0] == 0 for y in loaded]
    if all(bad):
        return 1.0
    if any(bad):
        return 0.0
    try:
        first, second = (normalize_rows(mfcc(y)) for y in loaded)
    except Exception as exc:  # noqa: BLE001 - OSWorld scores a failed feature extraction 0
        logger.info("compare_audios: %s", exc)
        return 0.0
    distance, path = fastdtw(first.T, second.T, cosine_distance)
    return float(np.exp(-(distance / len(path) if path else math.inf)))


def check_mp3_meta(result: Any, meta: dict[str, dict[str, Any]]) -> float:
    """Each ID3 tag named in `meta` (values joined by commas, "" when absent) matches its rule."""
    if result is None:
        return 0.0
    tags = require("mutagen.easyid3", "mutagen", "check_mp3_meta").EasyID3(result)
    holds = True
    for key, rule in meta.items():
        value = tags.get(key, "")
        if isinstance(value, list):
            value = ",".join(value)
        holds = holds and match_value(value, rule)
    return float(holds)
