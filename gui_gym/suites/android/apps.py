"""The apps AndroidWorld's tasks use: package, launch activity, the APK it installs, data paths.

AndroidWorld runs on a Pixel 6 emulator (API 33, Google APIs image) with stock apps (Settings,
Clock, Contacts, Files, Camera, Chrome, Dialer) and 14 apps it installs from APKs it publishes
(``https://storage.googleapis.com/gresearch/android_world/<apk>``), pinned to the versions in
the names below. Tasks name apps the way AndroidWorld's tasks do ("simple calendar pro",
"pro expense"); `app` resolves those names and their aliases.
"""

from __future__ import annotations

from dataclasses import dataclass

APK_BASE_URL = "https://storage.googleapis.com/gresearch/android_world/"
"""Where AndroidWorld publishes the APKs and app data (e.g. OsmAnd's offline map) it installs."""


@dataclass(frozen=True)
class App:
    """One app as AndroidWorld uses it."""

    name: str
    """AndroidWorld's name for it (its tasks' ``app_names``)."""
    package: str
    activity: str
    """The launch activity, ``package/class``."""
    apk: str = ""
    """The APK AndroidWorld installs (empty for stock apps)."""
    aliases: tuple[str, ...] = ()
    permissions: tuple[str, ...] = ()
    """Runtime permissions granted at set-up, so no dialog asks for them."""

    @property
    def data_dir(self) -> str:
        return f"/data/data/{self.package}"


APPS: tuple[App, ...] = (
    App("settings", "com.android.settings", "com.android.settings/.Settings", aliases=("system settings",)),
    App("clock", "com.google.android.deskclock", "com.google.android.deskclock/com.android.deskclock.DeskClock"),
    App("contacts", "com.google.android.contacts",
        "com.google.android.contacts/com.android.contacts.activities.PeopleActivity"),
    App("files", "com.google.android.documentsui",
        "com.google.android.documentsui/com.android.documentsui.files.FilesActivity"),
    App("camera", "com.android.camera2", "com.android.camera2/com.android.camera.CameraLauncher",
        permissions=("android.permission.ACCESS_COARSE_LOCATION",)),
    App("chrome", "com.android.chrome", "com.android.chrome/com.google.android.apps.chrome.Main",
        aliases=("google chrome",), permissions=("android.permission.POST_NOTIFICATIONS",)),
    App("dialer", "com.google.android.dialer",
        "com.google.android.dialer/com.google.android.dialer.extensions.GoogleDialtactsActivity", aliases=("phone",)),
    App("markor", "net.gsantner.markor", "net.gsantner.markor/net.gsantner.markor.activity.MainActivity",
        "net.gsantner.markor_146.apk"),
    App("clipper", "ca.zgrs.clipper", "ca.zgrs.clipper/ca.zgrs.clipper.Main", "clipper.apk"),
    App("simple sms messenger", "com.simplemobiletools.smsmessenger",
        "com.simplemobiletools.smsmessenger/com.simplemobiletools.smsmessenger.activities.MainActivity",
        "com.simplemobiletools.smsmessenger_85.apk", aliases=("simple sms",)),
    App("simple calendar pro", "com.simplemobiletools.calendar.pro",
        "com.simplemobiletools.calendar.pro/com.simplemobiletools.calendar.pro.activities.MainActivity",
        "com.simplemobiletools.calendar.pro_238.apk", aliases=("simple calendar",),
        permissions=("android.permission.READ_CALENDAR", "android.permission.WRITE_CALENDAR",
                     "android.permission.POST_NOTIFICATIONS")),
    App("simple gallery pro", "com.simplemobiletools.gallery.pro",
        "com.simplemobiletools.gallery.pro/com.simplemobiletools.gallery.pro.activities.MainActivity",
        "com.simplemobiletools.gallery.pro_396.apk", aliases=("simple gallery",),
        permissions=("android.permission.WRITE_EXTERNAL_STORAGE", "android.permission.ACCESS_MEDIA_LOCATION",
                     "android.permission.READ_MEDIA_IMAGES", "android.permission.READ_MEDIA_VIDEO",
                     "android.permission.POST_NOTIFICATIONS")),
    App("simple draw pro", "com.simplemobiletools.draw.pro",
        "com.simplemobiletools.draw.pro/com.simplemobiletools.draw.pro.activities.MainActivity",
        "com.simplemobiletools.draw.pro_79.apk"),
    App("pro expense", "com.arduia.expense", "com.arduia.expense/com.arduia.expense.ui.MainActivity",
        "com.arduia.expense_11.apk", aliases=("pro expense app",)),
    App("broccoli app", "com.flauschcode.broccoli", "com.flauschcode.broccoli/com.flauschcode.broccoli.MainActivity",
        "com.flauschcode.broccoli_1020600.apk", aliases=("broccoli", "broccoli recipe app", "recipe app")),
    App("osmand", "net.osmand", "net.osmand/net.osmand.plus.activities.MapActivity", "net.osmand-4.6.13.apk",
        permissions=("android.permission.POST_NOTIFICATIONS",)),
    App("tasks", "org.tasks", "org.tasks/com.todoroo.astrid.activity.MainActivity", "org.tasks_130605.apk",
        aliases=("tasks app", "tasks.org")),
    App("open tracks sports tracker", "de.dennisguse.opentracks",
        "de.dennisguse.opentracks/de.dennisguse.opentracks.TrackListActivity", "de.dennisguse.opentracks_5705.apk",
        aliases=("activity tracker", "open tracks", "opentracks"),
        permissions=("android.permission.ACCESS_COARSE_LOCATION", "android.permission.ACCESS_FINE_LOCATION",
                     "android.permission.POST_NOTIFICATIONS")),
    App("joplin", "net.cozic.joplin", "net.cozic.joplin/.MainActivity", "net.cozic.joplin_2097740.apk",
        aliases=("joplin app",),
        permissions=("android.permission.ACCESS_COARSE_LOCATION", "android.permission.ACCESS_FINE_LOCATION")),
    App("vlc", "org.videolan.vlc", "org.videolan.vlc/.gui.MainActivity", "org.videolan.vlc_13050408.apk",
        aliases=("vlc app", "vlc player"), permissions=("android.permission.POST_NOTIFICATIONS",)),
    App("retro music", "code.name.monkey.retromusic", "code.name.monkey.retromusic/.activities.MainActivity",
        "code.name.monkey.retromusic_10603.apk", aliases=("retro", "retro player"),
        permissions=("android.permission.READ_MEDIA_AUDIO", "android.permission.POST_NOTIFICATIONS")),
    App("audio recorder", "com.dimowner.audiorecorder",
        "com.dimowner.audiorecorder/com.dimowner.audiorecorder.app.welcome.WelcomeActivity",
        "com.dimowner.audiorecorder_926.apk",
        permissions=("android.permission.RECORD_AUDIO", "android.permission.POST_NOTIFICATIONS")),
)
_BY_NAME = {key: a for a in APPS for key in (a.name, *a.aliases)}

APP_DATA_FILES: dict[str, tuple[tuple[str, str], ...]] = {
    "osmand": (("Liechtenstein_europe.obf", "/storage/emulated/0/Android/data/net.osmand/files/"),),
}
"""Data files AndroidWorld copies to the device at set-up: (file at APK_BASE_URL, device folder)."""


def app(name: str) -> App:
    """The app an AndroidWorld app name means; KeyError naming the known ones otherwise."""
    try:
        return _BY_NAME[" ".join(name.lower().split())]
    except KeyError:
        raise KeyError(f"unknown app {name!r}; AndroidWorld's apps: {sorted(a.name for a in APPS)}") from None


def installed_apps() -> tuple[App, ...]:
    """The apps installed from APKs (not the stock ones)."""
    return tuple(a for a in APPS if a.apk)
