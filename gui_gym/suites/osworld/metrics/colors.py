"""Colour distance as OSWorld measures it (scikit-image's ``rgb2lab`` then
``deltaE_ciede2000``), written with numpy alone: sRGB (D65, 2° observer) to CIE L*a*b*,
then the CIEDE2000 difference (Sharma, Wu and Dalal's formulation, kL = kC = kH = 1)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

XYZ_FROM_RGB = np.array([[0.412453, 0.357580, 0.180423],
                         [0.212671, 0.715160, 0.072169],
                         [0.019334, 0.119193, 0.950227]])
D65 = np.array([0.95047, 1.0, 1.08883])


def rgb_to_lab(rgb: Sequence[int]) -> np.ndarray:
    """L*a*b* of an 8-bit sRGB colour."""
    linear = np.asarray(rgb, dtype=float) / 255.0
    linear = np.where(linear > 0.04045, ((linear + 0.055) / 1.055) ** 2.4, linear / 12.92)
    xyz = XYZ_FROM_RGB @ linear / D65
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16.0 / 116.0)
    return np.array([116.0 * f[1] - 16.0, 500.0 * (f[0] - f[1]), 200.0 * (f[1] - f[2])])


def ciede2000(rgb1: Sequence[int], rgb2: Sequence[int]) -> float:
    """CIEDE2000 distance between two 8-bit sRGB colours."""
    (l1, a1, b1), (l2, a2, b2) = rgb_to_lab(rgb1), rgb_to_lab(rgb2)
    c_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_mean ** 7 / (c_mean ** 7 + 25.0 ** 7)))
    a1, a2 = a1 * (1 + g), a2 * (1 + g)
    c1, c2 = np.hypot(a1, b1), np.hypot(a2, b2)
    h1, h2 = np.arctan2(b1, a1) % (2 * np.pi), np.arctan2(b2, a2) % (2 * np.pi)
    dl, dc = l2 - l1, c2 - c1
    dh = h2 - h1
    if c1 * c2 == 0:
        dh = 0.0
    elif dh > np.pi:
        dh -= 2 * np.pi
    elif dh < -np.pi:
        dh += 2 * np.pi
    dh_term = 2 * np.sqrt(c1 * c2) * np.sin(dh / 2)
    l_mean, c_bar = (l1 + l2) / 2, (c1 + c2) / 2
    h_sum = h1 + h2
    if c1 * c2 == 0:
        h_mean = h_sum
    elif abs(h1 - h2) <= np.pi:
        h_mean = h_sum / 2
    else:
        h_mean = (h_sum + 2 * np.pi) / 2 if h_sum < 2 * np.pi else (h_sum - 2 * np.pi) / 2
    t = (1 - 0.17 * np.cos(h_mean - np.deg2rad(30)) + 0.24 * np.cos(2 * h_mean)
         + 0.32 * np.cos(3 * h_mean + np.deg2rad(6)) - 0.20 * np.cos(4 * h_mean - np.deg2rad(63)))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / np.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * c_bar
    s_h = 1 + 0.015 * c_bar * t
    rotation = -2 * np.sqrt(c_bar ** 7 / (c_bar ** 7 + 25.0 ** 7)) * np.sin(
        np.deg2rad(60) * np.exp(-(((np.rad2deg(h_mean) - 275) / 25) ** 2)))
    terms = dl / s_l, dc / s_c, dh_term / s_h
    squared = terms[0] ** 2 + terms[1] ** 2 + terms[2] ** 2 + rotation * terms[1] * terms[2]
    return float(np.sqrt(max(squared, 0.0)))
