"""The state OSWorld's VM starts from, where its tasks read it, written into a fresh desktop.

OSWorld's tasks start from a snapshot of its Ubuntu 22.04 GNOME VM; the local desktop starts
from Debian's defaults. Where a task's evaluator reads a default that differs, an agent that does
nothing scores points (``gui-bench osworld check`` finds these). Each entry here makes one such
default the VM's; docs/osworld.md has the table (property, VM, local before, local after).

- Audio: the VM's output is not at full volume (os/28cc3b7e asks to "turn up to the max volume"
  because "the volume is too small"); PulseAudio's null sink starts at 100 %. The user's
  PulseAudio script loads the system's and sets the default sink to `VOLUME_PERCENT`.
- Default applications: on Ubuntu, Videos (Totem) opens videos (multi_apps/937087b6 asks to make
  VLC the default); Debian has no default and ``xdg-mime`` falls back to the first app that
  declares the type, VLC. A system-level ``defaults.list`` (Ubuntu keeps one in
  ``/usr/share/applications``) names Totem for the video types it declares; the user's
  ``~/.config/mimeapps.list``, which ``xdg-mime default`` and Files write, still wins.
- Windows: the VM's GIMP opens its window maximised (its session remembers it so); Debian's
  starts at 1024x768 in a corner. GIMP reads its system configuration from a folder of the
  desktop's own (`write_gimp_config`, given as ``GIMP2_SYSCONFDIR``) whose ``sessionrc`` says
  maximised; the user's own ``sessionrc``, which GIMP writes at exit, still wins.
- Chrome's profile: the VM's Chrome has run before, so ``~/.config/google-chrome/Default/
  Preferences`` exists (setups edit it in place with ``jq``, chrome/3299584d) and holds
  Chrome's defaults. A fresh Chromium profile would take Debian's initial preferences instead
  (``/etc/chromium/master_preferences``: safe browsing off, a content setting, a home page).
  Two of Chrome's defaults are written out (`CHROME_PREFERENCES`), where Debian's Chromium has
  its own: Google is the search engine (Debian's is DuckDuckGo, whose new-tab page is an empty
  third-party page with the address bar showing ``chrome://new-tab-page-third-party``; with
  Google it is Google's, as on the VM), and no "Sign in to Chromium?" pill next to the address
  bar (the VM's older Chrome shows none): sign-in is off, as Debian's initial preferences have it.
"""

from __future__ import annotations

import configparser
import json
from pathlib import Path

VOLUME_PERCENT = 40
"""The VM's output volume at reset: below the maximum (the task's premise); the exact value of
OSWorld's image is not published, 40 % is Ubuntu's usual first-boot level."""
PULSE_SCRIPT = ".include /etc/pulse/default.pa\nset-sink-volume @DEFAULT_SINK@ {volume}\n"
"""The user's PulseAudio start-up script: the system's, then the VM's volume (65536 = 100 %)."""
SYSTEM_PULSE_SCRIPT = Path("/etc/pulse/default.pa")
VIDEO_PLAYER = "org.gnome.Totem.desktop"
"""Ubuntu's default video player (GNOME Videos)."""
APPLICATION_FOLDERS = (Path("/usr/share/applications"), Path("/usr/local/share/applications"))
CHROME_PROFILE = Path(".config/google-chrome")
GIMP_SYSTEM_CONFIG = Path("/etc/gimp/2.0")
GIMP_WINDOW = ('(maximized "no")', '(maximized "yes")')
"""GIMP's single window in the system's ``sessionrc``, and as the VM opens it."""
"""Where the Chrome stand-in keeps its profile, under the home (OSWorld's getters read it there)."""
GOOGLE_SEARCH = {
    "short_name": "Google", "keyword": "google.com", "prepopulate_id": 1, "input_encodings": ["UTF-8"],
    "safe_for_autoreplace": True, "favicon_url": "https://www.google.com/images/branding/product/ico/googleg_lodp.ico",
    "url": "{google:baseURL}search?q={searchTerms}&{google:RLZ}{google:originalQueryForSuggestion}"
           "{google:assistedQueryStats}{google:searchFieldtrialParameter}{google:language}{google:prefetchSource}"
           "{google:searchClient}{google:sourceId}{google:contextualSearchVersion}ie={inputEncoding}",
    "suggestions_url": "{google:baseSuggestURL}search?{google:searchFieldtrialParameter}client={google:suggestClient}"
                       "&gs_ri={google:suggestRid}&xssi=t&q={searchTerms}&{google:inputType}{google:omniboxFocusType}"
                       "{google:cursorPosition}{google:currentPageUrl}{google:pageClassification}"
                       "{google:clientCacheTimeToLive}{google:searchVersion}{google:sessionToken}{google:prefetchQuery}"
                       "sugkey={google:suggestAPIKeyParameter}",
    "new_tab_url": "{google:baseURL}_/chrome/newtab?{google:RLZ}{google:instantExtendedEnabledParameter}"
                   "ie={inputEncoding}",
}
"""Chromium's own entry for Google (its prepopulated engine 1)."""
CHROME_PREFERENCES = {"default_search_provider_data": {"template_url_data": GOOGLE_SEARCH},
                      "signin": {"allowed": False, "allowed_on_next_startup": False}}
"""The Chrome defaults the VM shows that Debian's Chromium lacks (see the module's docstring)."""


def write_home_state(home: Path) -> None:
    """The VM's per-user state, in `home` (before any of the user's processes runs)."""
    if SYSTEM_PULSE_SCRIPT.is_file():
        pulse = home / ".config" / "pulse"
        pulse.mkdir(parents=True, exist_ok=True)
        (pulse / "default.pa").write_text(PULSE_SCRIPT.format(volume=65536 * VOLUME_PERCENT // 100))
    profile = home / CHROME_PROFILE
    (profile / "Default").mkdir(parents=True, exist_ok=True)
    (profile / "Default" / "Preferences").write_text(json.dumps(CHROME_PREFERENCES) + "\n")  # Chrome adds the rest
    (profile / "First Run").touch()  # the sentinel of a profile that has run


def write_system_state(data_dir: Path) -> None:
    """The VM's system-wide defaults, in `data_dir` (an XDG data folder the desktop searches
    first; the host's own are read-only): Ubuntu's default video player, when it is installed."""
    types = video_types(VIDEO_PLAYER)
    if not types:
        return
    applications = data_dir / "applications"
    applications.mkdir(parents=True, exist_ok=True)
    lines = ["[Default Applications]", *(f"{t}={VIDEO_PLAYER}" for t in types)]
    (applications / "defaults.list").write_text("\n".join(lines) + "\n")


def video_types(desktop_file: str) -> list[str]:
    """The video MIME types an installed application's desktop file declares; [] when it is not installed."""
    for folder in APPLICATION_FOLDERS:
        path = folder / desktop_file
        if path.is_file():
            entry = configparser.ConfigParser(interpolation=None, strict=False)
            entry.read(path, encoding="utf-8")
            declared = entry.get("Desktop Entry", "MimeType", fallback="")
            return [t for t in declared.split(";") if t.startswith("video/")]
    return []


def write_gimp_config(folder: Path, system: Path = GIMP_SYSTEM_CONFIG) -> Path | None:
    """GIMP's system configuration with its window maximised, in `folder` (the system's other
    files linked); None when GIMP is not installed."""
    session = system / "sessionrc"
    if not session.is_file():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    for path in system.iterdir():
        target = folder / path.name
        if path.name != session.name and not target.exists():
            target.symlink_to(path)
    text = session.read_text()
    if GIMP_WINDOW[0] not in text:
        raise RuntimeError(f"{session} no longer says {GIMP_WINDOW[0]}: GIMP's window setting has changed")
    (folder / session.name).write_text(text.replace(*GIMP_WINDOW))
    return folder
