"""OSWorld's app getters: VLC (its ``vlcrc``, its HTTP status page, the default video
player), GIMP's configuration files, a VS Code setting reached through its command palette,
and the audio or background image of an Impress slide (the agent's presentation, unpacked in
the evaluator's bounded worker within `ZipBounds`)."""

from __future__ import annotations

import json
import logging
import os
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

from gui_gym.actions import Action
from gui_gym.runtime.bounded_zip import BoundedZip, ZipBounds
from gui_gym.suites.osworld.context import EpisodeContext
from gui_gym.suites.osworld.getters.files import get_vm_file

logger = logging.getLogger(__name__)

VLC_STATUS = "http://localhost:8080/requests/status.xml"
VLC_PASSWORD = "password"
"""OSWorld's VLC HTTP interface: port 8080 on the desktop, an empty user and this password."""
VIDEO_TYPES = ("3gp", "3gpp", "3gpp2", "avi", "divx", "dv", "fli", "flv", "mp2t", "mp4", "mp4v-es", "mpeg", "mpeg-system",
               "msvideo", "ogg", "quicktime", "vnd.divx", "vnd.mpegurl", "vnd.rn-realvideo", "webm", "x-anim", "x-avi",
               "x-flc", "x-fli", "x-flv", "x-m4v", "x-matroska", "x-mpeg", "x-mpeg-system", "x-mpeg2", "x-ms-asf",
               "x-ms-asf-plugin", "x-ms-asx", "x-ms-wm", "x-ms-wmv", "x-ms-wmx", "x-ms-wvx", "x-msvideo", "x-nsv",
               "x-ogm", "x-ogm+ogg", "x-theora", "x-theora+ogg")
"""The video MIME subtypes OSWorld asks ``xdg-mime`` about (it asks most of them twice;
counting each once changes no most-common answer)."""
REL_NS = {"r": "http://schemas.openxmlformats.org/package/2006/relationships"}
P_BG = "{http://schemas.openxmlformats.org/presentationml/2006/main}bgPr"
A_BLIP = "{http://schemas.openxmlformats.org/drawingml/2006/main}blip"
R_EMBED = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}embed"
FETCH_STATUS = (
    "import base64, sys, urllib.request\n"
    "request = urllib.request.Request(sys.argv[1], headers={'Authorization': 'Basic ' + "
    "base64.b64encode((':' + sys.argv[2]).encode()).decode()})\n"
    "try:\n"
    "    print(base64.b64encode(urllib.request.urlopen(request, timeout=30).read()).decode())\n"
    "except Exception as exc:\n"
    "    print('ERROR', exc)\n")
ASK_MIME = (
    "import json, subprocess, sys\n"
    "print(json.dumps([subprocess.run(['xdg-mime', 'query', 'default', 'video/' + t], capture_output=True, "
    "text=True).stdout for t in sys.argv[1:]]))\n")


def get_vlc_config(ctx: EpisodeContext, config: dict[str, Any]) -> str:
    """VLC's ``~/.config/vlc/vlcrc``, saved as ``dest`` (a missing file fails, as in OSWorld)."""
    content = ctx.get_file(f"{ctx.home}/.config/vlc/vlcrc")
    if content is None:
        raise FileNotFoundError("the desktop has no ~/.config/vlc/vlcrc")
    target = ctx.scratch / config["dest"]
    target.write_bytes(content)
    return str(target)


def get_vlc_playing_info(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    """VLC's ``status.xml`` from its HTTP interface on the desktop, saved as ``dest``."""
    import base64

    result = ctx.desktop_python(FETCH_STATUS, VLC_STATUS, VLC_PASSWORD)
    output = (result.get("output") or "").strip()
    if not output or output.startswith("ERROR"):
        logger.info("vlc_playing_info: %s", output or result.get("error"))
        return None
    target = ctx.scratch / config["dest"]
    target.write_bytes(base64.b64decode(output))
    return str(target)


def get_default_video_player(ctx: EpisodeContext, config: dict[str, Any]) -> str:
    """The desktop's most common default application for video types (``xdg-mime``)."""
    result = ctx.desktop_python(ASK_MIME, *VIDEO_TYPES)
    apps = [app for app in json.loads(result.get("output") or "[]") if app]
    return Counter(apps).most_common(1)[0][0] if apps else "unknown"


def get_gimp_config_file(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    """``~/.config/GIMP/2.10/<file_name>``, saved as ``dest``; None when it is not there."""
    content = ctx.get_file(f"{ctx.home}/.config/GIMP/2.10/{config['file_name']}")
    if not content:
        return None
    target = ctx.scratch / config["dest"]
    target.write_bytes(content)
    return str(target)


def get_vscode_config(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """Run a VS Code command (Ctrl+Shift+P, its name, Enter), then fetch the file it writes."""
    for action in (Action.hotkey("ctrl", "shift", "p"), Action.type(config["vscode_extension_command"]),
                   Action.key("enter")):
        ctx.backend.execute(action)
    ctx.backend.wait_for_screen(1.0)
    return get_vm_file(ctx, {"path": config["path"], "dest": config["dest"]})


MAX_XML_BYTES = 16 << 20
"""The largest part of a presentation read as XML (a slide or its relationships)."""


def slide_part(ppt: str, slide_index: int, wanted: str, background: bool, max_bytes: int) -> list[str] | None:
    """``["inside", path]`` (the part extracted next to the presentation) or ``["outside",
    desktop path]`` (a ``file://`` link) of the slide's first relationship of type `wanted`
    (with `background`, the one its background picture names), or None: OSWorld's reading.
    Runs in the bounded worker: the presentation is the agent's, unpacked within
    `ZipBounds` (parts of at most `max_bytes`), never past them."""
    with BoundedZip(ppt, ZipBounds(max_member_bytes=max_bytes)) as archive:
        image_id = None
        if background:
            image_id = _background_image_id(archive, slide_index)
            if image_id is None:
                return None
        rels = f"ppt/slides/_rels/slide{slide_index + 1}.xml.rels"
        if rels not in archive.names():
            return None
        for rel in ET.fromstring(archive.read(rels, MAX_XML_BYTES)).findall("r:Relationship", REL_NS):
            if wanted not in rel.attrib["Type"] or (image_id is not None and rel.attrib["Id"] != image_id):
                continue
            target = rel.attrib["Target"]
            if target.startswith(".."):
                member = os.path.normpath(os.path.join("ppt/slides", target)).replace("\\", "/")
                if member.startswith(("../", "/")):
                    raise ValueError(f"the relationship's target {target!r} is outside the presentation")
                folder = Path(ppt).parent
                archive.extract(member, folder / member)
                return ["inside", str(folder / member)]
            if not target.startswith("file://"):
                raise AssertionError(target)
            return ["outside", target[7:]]
    return None


def _background_image_id(archive: BoundedZip, index: int) -> str | None:
    """The relationship id of the slide's background picture; None when it has none."""
    name = f"ppt/slides/slide{index + 1}.xml"
    if name not in archive.names():
        return None
    for background in ET.fromstring(archive.read(name, MAX_XML_BYTES)).iter(P_BG):
        blip = next(background.iter(A_BLIP), None)
        if blip is not None and R_EMBED in blip.attrib:
            return blip.attrib[R_EMBED]
    return None


def _slide_file(ctx: EpisodeContext, config: dict[str, Any], wanted: str, background: bool = False) -> Any:
    ppt = get_vm_file(ctx, {"path": config["ppt_file_path"], "dest": os.path.basename(config["ppt_file_path"])})
    found = ctx.bounded(f"{__name__}:slide_part", ppt, int(config["slide_index"]), wanted, background,
                        ctx.limits.max_file_bytes)
    if found is None:
        return None
    where, path = found
    return path if where == "inside" else get_vm_file(ctx, {"path": path, "dest": config["dest"]})


def get_audio_in_slide(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """The slide's (first) audio: extracted from the presentation, or fetched from the
    desktop when it is linked (``file://``)."""
    return _slide_file(ctx, config, "audio")


def get_background_image_in_slide(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """The slide's background picture, extracted (or fetched when linked)."""
    return _slide_file(ctx, config, "image", background=True)
