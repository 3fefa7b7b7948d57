"""ScreenSpot, ScreenSpot-v2 and ScreenSpot-Pro files as grounding targets, so the L2 env
scores them the same way (a hit is the point inside the box, edges included).

Layouts, as the datasets ship them:

- ScreenSpot (SeeClick): ``screenspot_{mobile,desktop,web}.json`` and ``screenspot_imgs/``;
- ScreenSpot-v2: ``screenspot_{mobile,desktop,web}_v2.json`` and ``screenspotv2_image/``;
  both with records ``{img_filename, bbox: [x, y, w, h] pixels, instruction, data_type,
  data_source}``; the split (mobile/desktop/web) is the platform of the breakdown;
- ScreenSpot-Pro: ``annotations/<app>_<os>.json`` and ``images/``, records ``{img_filename,
  bbox: [x1, y1, x2, y2] pixels, instruction, id, application, platform, img_size, ui_type,
  group}``.

The folder comes from ``data_root=`` or the format's environment variable (`ENV_VARS`).
"""

from __future__ import annotations

import os
import re

from gui_gym.errors import MissingResourceError
from gui_gym.suites.mmbench.answers import xywh_to_xyxy
from gui_gym.suites.mmbench.data import Target, check_unique, data_type, read_records, require, resolve_root

ENV_VARS = {
    "screenspot": "GUI_GYM_SCREENSPOT_ROOT",
    "screenspot_v2": "GUI_GYM_SCREENSPOT_V2_ROOT",
    "screenspot_pro": "GUI_GYM_SCREENSPOT_PRO_ROOT",
}
URLS = {
    "screenspot": "https://huggingface.co/datasets/rootsautomation/ScreenSpot (or SeeClick's release)",
    "screenspot_v2": "https://huggingface.co/datasets/OS-Copilot/ScreenSpot-v2",
    "screenspot_pro": "https://huggingface.co/datasets/likaixin/ScreenSpot-Pro",
}
_LAYOUTS = {
    "screenspot": (re.compile(r"screenspot_([a-z]+)\.json"), "screenspot_imgs"),
    "screenspot_v2": (re.compile(r"screenspot_([a-z]+)_v2\.json"), "screenspotv2_image"),
}


def _hint(fmt: str) -> str:
    layout = ("annotations/*.json and images/" if fmt == "screenspot_pro" else
              f"screenspot_{{mobile,desktop,web}}{'_v2' if fmt == 'screenspot_v2' else ''}.json and {_LAYOUTS[fmt][1]}/")
    return (f"Download it from {URLS[fmt]}, put {layout} in one folder, then pass data_root=FOLDER "
            f"or set ${ENV_VARS[fmt]}.")


def load_screenspot(data_root: str | os.PathLike[str] | None, version: str = "screenspot") -> list[Target]:
    """ScreenSpot (``version="screenspot"``) or ScreenSpot-v2 (``"screenspot_v2"``) targets."""
    if version not in _LAYOUTS:
        raise ValueError(f"version must be one of {sorted(_LAYOUTS)}, received {version!r}")
    root = resolve_root(data_root, (ENV_VARS[version],), version, _hint(version))
    name_pattern, image_folder = _LAYOUTS[version]
    files = sorted(p for p in root.glob("screenspot_*.json") if name_pattern.fullmatch(p.name))
    if not files:
        wanted = f"screenspot_<split>{'_v2' if version == 'screenspot_v2' else ''}.json"
        raise MissingResourceError(f"{version} data not found: no {wanted} file in {root}. {_hint(version)}")
    images = root / image_folder if (root / image_folder).is_dir() else root
    targets: list[Target] = []
    for path in files:
        split = name_pattern.fullmatch(path.name).group(1)
        for position, record in enumerate(read_records(path)):
            where = f"{path} record {position}"
            targets.append(Target(
                task_id=f"{version.replace('_', '-')}.{split}.{position:04d}",
                image=images / require(record, "img_filename", where),
                instruction=require(record, "instruction", where),
                bbox=tuple(xywh_to_xyxy(require(record, "bbox", where, list), where)),
                data_type=data_type(require(record, "data_type", where), where),
                platform=split, app_name=str(record.get("data_source") or ""),
                extra={"data_source": record.get("data_source")}))
    return check_unique(targets, root)


def load_screenspot_pro(data_root: str | os.PathLike[str] | None) -> list[Target]:
    """ScreenSpot-Pro targets from ``annotations/*.json`` with images under ``images/``."""
    root = resolve_root(data_root, (ENV_VARS["screenspot_pro"],), "screenspot_pro", _hint("screenspot_pro"))
    files = sorted((root / "annotations").glob("*.json"))
    if not files:
        raise MissingResourceError(f"screenspot_pro data not found: no annotations/*.json in {root}. {_hint('screenspot_pro')}")
    targets: list[Target] = []
    for path in files:
        for position, record in enumerate(read_records(path)):
            where = f"{path} record {position}"
            targets.append(Target(
                task_id=f"screenspot-pro.{path.stem}.{record.get('id', position)}",
                image=root / "images" / require(record, "img_filename", where),
                instruction=require(record, "instruction", where),
                bbox=tuple(require(record, "bbox", where, list)),
                data_type=data_type(require(record, "ui_type", where), where),
                platform=str(record.get("platform") or ""), app_name=str(record.get("application") or ""),
                extra={"group": record.get("group"), "img_size": record.get("img_size")}))
    return check_unique(targets, root)
