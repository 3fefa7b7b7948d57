"""Parity with OSWorld's ``metrics/gimp.py``, ``vlc.py`` and ``others.py::check_mp3_meta``
(desktop-env 1.0.2, with scikit-image, librosa, fastdtw, OpenCV and ImageHash) on generated
images (PNG, JPEG, palette, transparency, tiny and landscape images), audio (WAV at two
rates, stereo, MP3), videos (ffmpeg's test patterns) and VLC's settings and status files."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import soundfile
from mutagen.easyid3 import EasyID3
from tests.osworld_reference import Parity
from PIL import Image, ImageDraw, ImageEnhance

from gui_gym.suites.osworld.metrics import audio, images, media


def _scene(size: tuple[int, int] = (64, 48), seed: int = 0) -> Image.Image:
    rng = np.random.default_rng(seed)
    w, h = size
    x, y = np.meshgrid(np.linspace(0, 1, w), np.linspace(0, 1, h))
    pixels = np.stack([x * 200 + 20, y * 180 + 30, (1 - x) * 150 + 50], axis=2) + rng.normal(0, 4, (h, w, 3))
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    draw.ellipse([w // 4, h // 4, w // 2, h // 2], fill=(240, 30, 30))
    draw.rectangle([w // 2, h // 2, 3 * w // 4, 3 * h // 4], fill=(20, 20, 200))
    return image


@pytest.fixture(scope="module")
def pictures(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("parity-images")
    base = _scene()
    made = {
        "base": base, "same": base.copy(), "noise": _scene(seed=1), "other": _scene((64, 48), 5).rotate(90),
        "darker": ImageEnhance.Brightness(base).enhance(0.6), "brighter": ImageEnhance.Brightness(base).enhance(1.4),
        "saturated": ImageEnhance.Color(base).enhance(1.8), "desaturated": ImageEnhance.Color(base).enhance(0.3),
        "contrast": ImageEnhance.Contrast(base).enhance(1.7), "flat": ImageEnhance.Contrast(base).enhance(0.4),
        "mirrored": base.transpose(Image.FLIP_LEFT_RIGHT), "resized": base.resize((128, 96)),
        "palette": base.convert("P", palette=Image.ADAPTIVE, colors=64), "gray": base.convert("L"),
        "tiny": base.resize((6, 5)), "rgba": base.convert("RGBA"),
    }
    transparent = Image.new("RGBA", (80, 60), (0, 0, 0, 0))
    transparent.paste(base.resize((40, 30)), (20, 15))
    made["transparent"] = transparent
    triangle = Image.new("RGB", (60, 60), (255, 255, 255))
    ImageDraw.Draw(triangle).polygon([(20, 40), (40, 40), (30, 20)], fill=(250, 200, 0))
    ImageDraw.Draw(triangle).rectangle([0, 0, 3, 3], fill=(1, 2, 3))
    made["triangle"] = triangle
    corner = Image.new("RGB", (60, 60), (255, 255, 255))
    ImageDraw.Draw(corner).polygon([(0, 20), (20, 20), (10, 0)], fill=(250, 200, 0))
    ImageDraw.Draw(corner).rectangle([50, 50, 59, 59], fill=(1, 2, 3))
    made["triangle-corner"] = corner
    mask = Image.new("RGB", (40, 40), (0, 0, 0))
    ImageDraw.Draw(mask).rectangle([10, 10, 30, 30], fill=(255, 255, 255))
    made["mask"] = mask
    made["green"] = Image.new("RGB", (40, 40), (20, 200, 30))
    made["mask-wide"] = mask.resize((60, 40))
    made["green-wide"] = Image.new("RGB", (60, 40), (20, 200, 30))
    textbox = Image.new("RGB", (100, 40), (255, 255, 255))
    ImageDraw.Draw(textbox).rectangle([2, 10, 30, 20], fill=(0, 0, 0))
    made["text-left"] = textbox
    right = Image.new("RGB", (100, 40), (255, 255, 255))
    ImageDraw.Draw(right).rectangle([60, 10, 90, 20], fill=(0, 0, 0))
    made["text-right"] = right
    out = {}
    for name, image in made.items():
        out[name] = str(folder / f"{name}.png")
        image.save(out[name])
    out["jpeg"] = str(folder / "base.jpg")
    base.save(out["jpeg"], quality=70)
    (folder / "empty.png").write_bytes(b"")
    out["empty"] = str(folder / "empty.png")
    return out


def run(parity: Parity, cases: list) -> None:
    failures = parity.check(cases)
    assert not failures, "\n".join(failures)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_image_metrics(osworld_ref, pictures):
    gimp, vlc = osworld_ref.metrics("gimp"), osworld_ref.metrics("vlc")
    all_names = [n for n in pictures if n not in ("empty",)]
    pairs = {
        "compare_image_list": ["base", "same", "noise", "resized", "gray", "palette", "jpeg"],
        "check_brightness_decrease_and_structure_sim": ["darker", "brighter", "base", "other", "resized"],
        "check_saturation_increase_and_structure_sim": ["saturated", "desaturated", "base", "other", "tiny"],
        "check_file_exists_and_structure_sim": ["base", "same", "noise", "jpeg", "other", "tiny", "resized"],
        "check_structure_sim": ["base", "noise", "jpeg", "other", "resized", "gray", "rgba"],
        "check_structure_sim_resized": ["base", "resized", "transparent", "other", "rgba"],
        "check_contrast_increase_and_structure_sim": ["contrast", "flat", "base", "other"],
        "check_palette_and_structure_sim": ["palette", "base", "noise", "empty"],
        "check_image_mirror": ["mirrored", "base", "other"],
        "check_green_background": ["green", "mask", "base", "green-wide", "mask-wide"],
        "compare_images": ["base", "noise", "jpeg", "other", "resized", "gray", "mirrored"],
    }
    theirs = {name: getattr(vlc if name == "compare_images" else gimp, name) for name in pairs}
    for name, names in pairs.items():
        cases = [(f"{a}~{b}", (pictures[a], pictures[b]), {}) for a in names for b in names]
        cases.append(("none", (None, pictures[names[0]]), {}))
        if name == "check_brightness_decrease_and_structure_sim":
            cases += [(f"t-{a}", (pictures[a], pictures["base"], 0.001), {}) for a in names]
        if name == "compare_images":
            cases += [(f"base-{a}", (pictures[a], pictures["base"]), {"reference_base_result": 0.5}) for a in names]
        run(Parity(name, getattr(images, name), theirs[name]), cases)
    singles = {
        "check_triangle_position": ([()], ["triangle", "triangle-corner", "base"]),
        "check_textbox_on_leftside": ([()], ["text-left", "text-right", "base"]),
        "check_image_size": ([({"width": 64, "height": 48},), ({"height": 48},), ({"width": 40, "ignore_transparent": True},),
                              ({"width": 80},)], ["base", "resized", "transparent", "rgba", "palette"]),
        "check_image_file_size": ([({"max_size": 5000},), ({"max_size": 10 ** 7},)], ["base", "jpeg", "resized"]),
    }
    for name, (extras, names) in singles.items():
        cases = [(f"{n}-{i}", (pictures[n], *extra), {}) for n in names for i, extra in enumerate(extras)]
        cases.append(("none", (None, *extras[0]), {}))
        run(Parity(name, getattr(images, name), getattr(gimp, name)), cases)
    assert all_names


def test_gimp_config_status(osworld_ref, tmp_path):
    gimp = osworld_ref.metrics("gimp")
    files = {"sessionrc": '# GIMP sessionrc\n\n(session-info "toolbox"\n    (position 10 20))\n(hide-docks yes)\n(single-window-mode no)\n',
             "gimprc": "(default-export-path \"/home/user/Desktop\")\n(undo-levels 100)\n", "broken": "(\n   \n"}
    rules = [{"key": "hide-docks", "value": "yes"}, {"key": "single-window-mode", "value": "yes"},
             {"key": ["session-info", '"toolbox"'], "value": '"toolbox"'}, {"key": "undo-levels", "value": "100"}]
    cases = []
    for name, content in files.items():
        path = tmp_path / name
        path.write_text(content)
        cases += [(f"{name}-{i}", (str(path), r), {}) for i, r in enumerate(rules)]
    run(Parity("check_config_status", images.check_config_status, gimp.check_config_status),
        cases + [("none", (None, rules[0]), {})])


def _tone(path: Path, frequency: float, rate: int, seconds: float = 1.5, stereo: bool = False, noise: float = 0.0,
          seed: int = 0) -> str:
    t = np.arange(int(rate * seconds)) / rate
    signal = 0.4 * np.sin(2 * np.pi * frequency * t * (1 + 0.3 * t)) + noise * np.random.default_rng(seed).normal(size=t.size)
    samples = np.stack([signal, 0.8 * signal], axis=1) if stereo else signal
    soundfile.write(path, samples.astype(np.float32), rate)
    return str(path)


@pytest.fixture(scope="module")
def sounds(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("parity-audio")
    out = {"a": _tone(folder / "a.wav", 440, 22050), "a-copy": _tone(folder / "a2.wav", 440, 22050),
           "a-44k": _tone(folder / "a44.wav", 440, 44100), "a-stereo": _tone(folder / "as.wav", 440, 44100, stereo=True),
           "a-noisy": _tone(folder / "an.wav", 440, 22050, noise=0.05), "b": _tone(folder / "b.wav", 880, 16000, 1.2)}
    (folder / "empty.wav").write_bytes(b"")
    out["empty"] = str(folder / "empty.wav")
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        pytest.fail("ffmpeg is needed to write MP3 files; scripts/setup.sh installs it")
    for name in ("a", "b"):
        mp3 = folder / f"{name}.mp3"
        subprocess.run([ffmpeg, "-v", "error", "-y", "-i", out[name], "-b:a", "128k", str(mp3)], check=True, timeout=120)
        out[f"{name}-mp3"] = str(mp3)
    return out


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_compare_audios(osworld_ref, sounds):
    """compare_audios is computed in numpy, not librosa: rounding in the last float32 bits
    leaves differences of about 1e-8 (within the default tolerance)."""
    theirs = osworld_ref.metrics("vlc").compare_audios
    names = ["a", "a-copy", "a-44k", "a-stereo", "a-noisy", "b", "a-mp3", "b-mp3"]
    cases = [(f"{x}~{y}", (sounds[x], sounds[y]), {}) for i, x in enumerate(names) for y in names[i:]]
    cases += [("empty~empty", (sounds["empty"], sounds["empty"]), {}), ("empty~a", (sounds["empty"], sounds["a"]), {}),
              ("none", (None, sounds["a"]), {})]
    run(Parity("compare_audios", audio.compare_audios, theirs), cases)


def test_mp3_meta(osworld_ref, sounds, tmp_path):
    others = osworld_ref.metrics("others")
    tagged = tmp_path / "tagged.mp3"
    shutil.copyfile(sounds["a-mp3"], tagged)
    tags = EasyID3()
    tags["title"], tags["artist"] = "Missing You", ["Cheng Xiang", "Band"]
    tags.save(str(tagged))
    plain = tmp_path / "plain.mp3"
    shutil.copyfile(sounds["b-mp3"], plain)
    EasyID3().save(str(plain))
    rules = [{"title": {"method": "eq", "ref": "Missing You"}}, {"artist": {"method": "eq", "ref": "Cheng Xiang,Band"}},
             {"title": {"method": "re", "ref": "^Miss"}, "album": {"method": "eq", "ref": ""}},
             {"artist": {"method": "str_set_eq", "ref": ["Band", "Cheng Xiang"]}}, {"title": {"method": "eq", "ref": "x"}}]
    cases = [(f"{n}-{i}", (str(p), r), {}) for n, p in (("tagged", tagged), ("plain", plain)) for i, r in enumerate(rules)]
    run(Parity("check_mp3_meta", audio.check_mp3_meta, others.check_mp3_meta), cases + [("none", (None, rules[0]), {})])


@pytest.fixture(scope="module")
def videos(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("parity-video")
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        pytest.fail("ffmpeg is needed to write videos; scripts/setup.sh installs it")
    specs = {"a": "testsrc=size=96x64:rate=10:duration=3", "a-copy": "testsrc=size=96x64:rate=10:duration=3",
             "short": "testsrc=size=96x64:rate=10:duration=1", "other": "mandelbrot=size=96x64:rate=10",
             "long": "testsrc=size=96x64:rate=10:duration=12"}
    out = {}
    for name, source in specs.items():
        path = folder / f"{name}.mp4"
        extra = ["-t", "3"] if name == "other" else []
        subprocess.run([ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i", source, *extra, "-pix_fmt", "yuv420p",
                        str(path)], check=True, timeout=120)
        out[name] = str(path)
    out["missing"] = str(folder / "missing.mp4")
    return out


@pytest.mark.slow
def test_compare_videos(osworld_ref, videos):
    theirs = osworld_ref.metrics("vlc").compare_videos
    names = list(videos)
    cases = [(f"{a}~{b}", (videos[a], videos[b]), {}) for a in names for b in names]
    run(Parity("compare_videos", media.compare_videos, theirs), cases)


VLCRC = {
    "set": "# VLC config\n[qt]\nqt-bgcone=0\nqt-max-volume=200\nqt-minimal-view=1\n"
           "qt-slider-colours=10;20;30;40;50;60;70;80;90;1;2;3\n[core]\ninput-record-path=/home/user/Desktop\n"
           "global-key-play-pause=Space\none-instance-when-started-from-file=0\nplay-and-exit=1\n",
    "commented": "#qt-bgcone=1\n#qt-max-volume=125\n# input-record-path=/tmp\n#global-key-play-pause=\n"
                 "#qt-slider-colours=153;210;153;20;210;20;255;199;15;245;39;29\n",
    "crlf": "qt-bgcone=0\r\ninput-record-path=/home/user/Desktop\r\nqt-max-volume=200\r\n", "empty": "",
}
STATUS = {
    "file": "<root><state>playing</state><information><category name=\"meta\"><info name=\"filename\">song.mp3</info>"
            "</category></information></root>",
    "path": "<root><state>playing</state><information><category name=\"meta\"><info name=\"title\">/home/user/Music/song.mp3"
            "</info></category></information></root>",
    "url": "<root><state>playing</state><information><category name=\"meta\"><info name=\"url\">"
           "https://example.com/live/stream.m3u8?x=1</info></category></information></root>",
    "hls": "<root><state>playing</state><information><category name=\"meta\"><info name=\"filename\">stream.m3u8</info>"
           "</category></information></root>",
    "paused": "<root><state>paused</state></root>", "nometa": "<root><state>playing</state></root>",
}


def test_vlc_settings_and_status(osworld_ref, tmp_path):
    vlc = osworld_ref.metrics("vlc")
    configs = {}
    for name, content in VLCRC.items():
        configs[name] = str(tmp_path / f"{name}.vlcrc")
        Path(configs[name]).write_bytes(content.encode())
    checks = {
        "check_qt_bgcone": [{"expected_qt_bgcone": 0}, {"expected_qt_bgcone": "1"}],
        "check_qt_max_volume": [{"expected_qt_max_volume": 200}, {"expected_qt_max_volume": 125}],
        "check_qt_minimal_view": [{"expected_qt_minimal_view": 1}, {"expected_qt_minimal_view": 0}],
        "check_one_instance_when_started_from_file": [{"expected_one_instance_when_started_from_file": 0},
                                                      {"expected_one_instance_when_started_from_file": 1}],
        "check_global_key_play_pause": [{"expected_global_key_play_pause": 1}, {"expected_global_key_play_pause": 0}],
        "check_qt_slider_colours": [{"type": "match", "expected_qt_slider_colours": "10;20;30;40;50;60;70;80;90;1;2;3"},
                                    {"type": "blackish"}, {"type": "other"}],
        "is_vlc_recordings_folder": [{"recording_file_path": "/home/user/Desktop"}, {"recording_file_path": "/tmp"}],
    }
    for name, rules in checks.items():
        cases = [(f"{c}-{i}", (p, r), {}) for c, p in configs.items() for i, r in enumerate(rules)]
        cases.append(("missing", (str(tmp_path / "none"), rules[0]), {}))
        run(Parity(name, getattr(media, name), getattr(vlc, name)), cases)
    statuses = {}
    for name, content in STATUS.items():
        statuses[name] = str(tmp_path / f"{name}.xml")
        Path(statuses[name]).write_text(content)
    rules = [{"type": "file_name", "file_name": "song.mp3"}, {"type": "file_name", "file_name": "other.mp3"},
             {"type": "url", "url": "https://example.com/live/stream.m3u8"}, {"type": "url", "url": "https://other.org/stream.m3u8"},
             {"type": "unknown"}]
    cases = [(f"{s}-{i}", (p, r), {}) for s, p in statuses.items() for i, r in enumerate(rules)]
    run(Parity("is_vlc_playing", media.is_vlc_playing, vlc.is_vlc_playing), cases)
    sizes = [None, {"width": 1920, "height": 1080}, {"width": 800, "height": 600}]
    cases = [(f"{a}~{b}", (a, b), {}) for a in sizes for b in sizes]
    run(Parity("is_vlc_fullscreen", media.is_vlc_fullscreen, vlc.is_vlc_fullscreen), cases)
