"""The data AndroidWorld's apps keep, for the virtual device: databases and folders, by app.

An app creates its databases (with the tables and columns the real app has, which are the
columns AndroidWorld's row classes mirror) and its folders the first time it starts after its
data was cleared, as the real app does. The databases are real SQLite files at the real paths,
some in WAL mode, so a reader that misses the ``-wal`` misses rows. Tests write the state an
agent would reach straight into these files (`db`), never through gui-gym's task code.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

STORAGE = "/storage/emulated/0"


@dataclass(frozen=True)
class FakeApp:
    """An installed app: what the launcher shows and what it creates on first start."""

    package: str
    label: str
    activity: str
    databases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Device path -> CREATE statements."""
    folders: tuple[str, ...] = ()
    wal: bool = False


def _table(name: str, columns: str) -> str:
    return f'CREATE TABLE IF NOT EXISTS "{name}" ({columns})'


CALENDAR_EVENTS = _table("events", (
    "id INTEGER PRIMARY KEY AUTOINCREMENT, start_ts INTEGER NOT NULL, end_ts INTEGER NOT NULL, title TEXT NOT NULL, "
    "location TEXT NOT NULL, description TEXT NOT NULL, reminder_1_minutes INTEGER NOT NULL, "
    "reminder_2_minutes INTEGER NOT NULL, reminder_3_minutes INTEGER NOT NULL, reminder_1_type INTEGER NOT NULL, "
    "reminder_2_type INTEGER NOT NULL, reminder_3_type INTEGER NOT NULL, repeat_interval INTEGER NOT NULL, "
    "repeat_rule INTEGER NOT NULL, repeat_limit INTEGER NOT NULL, repetition_exceptions TEXT NOT NULL, "
    "attendees TEXT NOT NULL, import_id TEXT NOT NULL, time_zone TEXT NOT NULL, flags INTEGER NOT NULL, "
    "event_type INTEGER NOT NULL, parent_id INTEGER NOT NULL, last_updated INTEGER NOT NULL, source TEXT NOT NULL, "
    "availability INTEGER NOT NULL, color INTEGER NOT NULL, type INTEGER NOT NULL"))
EXPENSES = _table("expense", (
    "expense_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, amount INTEGER NOT NULL, category INTEGER NOT NULL, "
    "note TEXT, created_date INTEGER NOT NULL, modified_date INTEGER NOT NULL"))
RECIPES = _table("recipes", (
    "recipeId INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT, description TEXT, servings TEXT, preparationTime TEXT, "
    "source TEXT, ingredients TEXT, directions TEXT, favorite INTEGER NOT NULL DEFAULT 0, imageName TEXT"))
TASKS = _table("tasks", (
    "_id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT, importance INTEGER NOT NULL DEFAULT 2, dueDate INTEGER NOT "
    "NULL DEFAULT 0, hideUntil INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL DEFAULT 0, modified INTEGER NOT "
    "NULL DEFAULT 0, completed INTEGER NOT NULL DEFAULT 0, deleted INTEGER NOT NULL DEFAULT 0, notes TEXT, "
    "estimatedSeconds INTEGER NOT NULL DEFAULT 0, elapsedSeconds INTEGER NOT NULL DEFAULT 0, timerStart INTEGER NOT "
    "NULL DEFAULT 0, notificationFlags INTEGER NOT NULL DEFAULT 0, lastNotified INTEGER NOT NULL DEFAULT 0, "
    "recurrence TEXT, repeat_from INTEGER NOT NULL DEFAULT 0, calendarUri TEXT, remoteId TEXT, collapsed INTEGER NOT "
    "NULL DEFAULT 0, parent INTEGER NOT NULL DEFAULT 0, \"order\" INTEGER, read_only INTEGER NOT NULL DEFAULT 0"))
TRACKS = _table("tracks", (
    "_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, description TEXT, category TEXT, activity_type TEXT, "
    "starttime INTEGER, stoptime INTEGER, numpoints INTEGER, totaldistance FLOAT, totaltime INTEGER, movingtime "
    "INTEGER, avgspeed FLOAT, avgmovingspeed FLOAT, maxspeed FLOAT, minelevation FLOAT, maxelevation FLOAT, "
    "elevationgain FLOAT, icon TEXT, uuid BLOB, elevationloss FLOAT, starttime_offset INTEGER"))
JOPLIN = (
    _table("notes", (
        "id TEXT PRIMARY KEY, parent_id TEXT NOT NULL DEFAULT '', title TEXT NOT NULL DEFAULT '', body TEXT NOT NULL "
        "DEFAULT '', created_time INT NOT NULL, updated_time INT NOT NULL, is_conflict INT NOT NULL DEFAULT 0, "
        "latitude NUMERIC NOT NULL DEFAULT 0, longitude NUMERIC NOT NULL DEFAULT 0, altitude NUMERIC NOT NULL DEFAULT "
        "0, author TEXT NOT NULL DEFAULT '', source_url TEXT NOT NULL DEFAULT '', is_todo INT NOT NULL DEFAULT 0, "
        "todo_due INT NOT NULL DEFAULT 0, todo_completed INT NOT NULL DEFAULT 0, source TEXT NOT NULL DEFAULT '', "
        "source_application TEXT NOT NULL DEFAULT '', application_data TEXT NOT NULL DEFAULT '', \"order\" NUMERIC "
        "NOT NULL DEFAULT 0, user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0, "
        "encryption_cipher_text TEXT NOT NULL DEFAULT '', encryption_applied INT NOT NULL DEFAULT 0, markup_language "
        "INT NOT NULL DEFAULT 1, is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT '', "
        "conflict_original_id TEXT NOT NULL DEFAULT '', master_key_id TEXT NOT NULL DEFAULT '', user_data TEXT NOT "
        "NULL DEFAULT '', deleted_time INT NOT NULL DEFAULT 0")),
    _table("folders", (
        "id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '', created_time INT NOT NULL, updated_time INT NOT NULL, "
        "user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0, encryption_cipher_text "
        "TEXT NOT NULL DEFAULT '', encryption_applied INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT '', "
        "is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT '', master_key_id TEXT NOT NULL DEFAULT '', "
        "icon TEXT NOT NULL DEFAULT '', user_data TEXT NOT NULL DEFAULT '', deleted_time INT NOT NULL DEFAULT 0")),
    _table("notes_normalized", (
        "id TEXT NOT NULL, title TEXT NOT NULL DEFAULT '', body TEXT NOT NULL DEFAULT '', user_created_time INT NOT "
        "NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0, is_todo INT NOT NULL DEFAULT 0, todo_completed INT "
        "NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT '', latitude NUMERIC NOT NULL DEFAULT 0, longitude "
        "NUMERIC NOT NULL DEFAULT 0, altitude NUMERIC NOT NULL DEFAULT 0, source_url TEXT NOT NULL DEFAULT '', "
        "todo_due INT NOT NULL DEFAULT 0")),
)
MAP_MARKERS = _table("map_markers", (
    "marker_id TEXT PRIMARY KEY, marker_lat DOUBLE, marker_lon DOUBLE, marker_description TEXT, marker_active INTEGER, "
    "marker_added LONG, marker_visited LONG, group_name TEXT, group_key TEXT, marker_color INTEGER, marker_next_key "
    "TEXT, marker_disabled INTEGER, marker_selected INTEGER, marker_map_object_name TEXT, title TEXT"))
VLC = (
    _table("Playlist", "id_playlist INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT COLLATE NOCASE, creation_date "
                       "UNSIGNED INTEGER NOT NULL DEFAULT 0, artwork_mrl TEXT"),
    _table("Media", "id_media INTEGER PRIMARY KEY AUTOINCREMENT, type INTEGER, duration INTEGER DEFAULT -1, "
                    "title TEXT COLLATE NOCASE, filename TEXT COLLATE NOCASE, is_present BOOLEAN NOT NULL DEFAULT 1"),
    _table("PlaylistMediaRelation", "media_id INTEGER, playlist_id INTEGER, position INTEGER"),
)
RETRO_PLAYLISTS = (
    _table("PlaylistEntity", "playlist_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, playlist_name TEXT NOT NULL"),
    _table("SongEntity", (
        "song_key INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, playlist_creator_id INTEGER NOT NULL, id INTEGER NOT "
        "NULL, title TEXT NOT NULL, track_number INTEGER NOT NULL, year INTEGER NOT NULL, duration INTEGER NOT NULL, "
        "data TEXT NOT NULL, date_modified INTEGER NOT NULL, album_id INTEGER NOT NULL, album_name TEXT NOT NULL, "
        "artist_id INTEGER NOT NULL, artist_name TEXT NOT NULL, composer TEXT, album_artist TEXT")),
)
RETRO_PLAYBACK = (_table("playing_queue", "_id INTEGER, title TEXT, track INTEGER, year INTEGER, duration INTEGER, "
                                          "data TEXT, artist_name TEXT"),
                  _table("original_playing_queue", "_id INTEGER, title TEXT"))
SMS = (
    _table("sms", (
        "_id INTEGER PRIMARY KEY, thread_id INTEGER, address TEXT, person INTEGER, date INTEGER, date_sent INTEGER "
        "DEFAULT 0, protocol INTEGER, read INTEGER DEFAULT 0, status INTEGER DEFAULT -1, type INTEGER, "
        "reply_path_present INTEGER, subject TEXT, body TEXT, service_center TEXT, locked INTEGER DEFAULT 0, "
        "sub_id INTEGER DEFAULT -1, error_code INTEGER DEFAULT -1, creator TEXT, seen INTEGER DEFAULT 0")),
    _table("threads", "_id INTEGER PRIMARY KEY AUTOINCREMENT, date INTEGER DEFAULT 0, message_count INTEGER "
                      "DEFAULT 0, recipient_ids TEXT, snippet TEXT, read INTEGER DEFAULT 1"),
)
TELEPHONY_DB = "/data/data/com.android.providers.telephony/databases/mmssms.db"

APPS = (
    FakeApp("net.gsantner.markor", "Markor", "net.gsantner.markor.activity.MainActivity",
            folders=(f"{STORAGE}/Documents/Markor",)),
    FakeApp("ca.zgrs.clipper", "Clipper", "ca.zgrs.clipper.Main"),
    FakeApp("com.simplemobiletools.calendar.pro", "Simple Calendar Pro",
            "com.simplemobiletools.calendar.pro.activities.MainActivity",
            {"/data/data/com.simplemobiletools.calendar.pro/databases/events.db": (CALENDAR_EVENTS,)}, wal=True),
    FakeApp("com.arduia.expense", "Pro Expense", "com.arduia.expense.ui.MainActivity",
            {"/data/data/com.arduia.expense/databases/accounting.db": (EXPENSES,)}, wal=True),
    FakeApp("com.flauschcode.broccoli", "Broccoli", "com.flauschcode.broccoli.MainActivity",
            {"/data/data/com.flauschcode.broccoli/databases/broccoli": (RECIPES,)}, wal=True),
    FakeApp("org.tasks", "Tasks", "com.todoroo.astrid.activity.MainActivity",
            {"/data/data/org.tasks/databases/database": (TASKS,)}, wal=True),
    FakeApp("de.dennisguse.opentracks", "OpenTracks", "de.dennisguse.opentracks.TrackListActivity",
            {"/data/data/de.dennisguse.opentracks/databases/database.db": (TRACKS,)}),
    FakeApp("net.cozic.joplin", "Joplin", "net.cozic.joplin.MainActivity",
            {"/data/data/net.cozic.joplin/databases/joplin.sqlite": JOPLIN}),
    FakeApp("net.osmand", "OsmAnd", "net.osmand.plus.activities.MapActivity",
            {"/data/data/net.osmand/databases/map_markers_db": (MAP_MARKERS,)},
            folders=(f"{STORAGE}/Android/data/net.osmand/files/tracks",
                     f"{STORAGE}/Android/data/net.osmand/files/favorites")),
    FakeApp("org.videolan.vlc", "VLC", "org.videolan.vlc.gui.MainActivity",
            {"/data/data/org.videolan.vlc/app_db/vlc_media.db": VLC}, folders=(f"{STORAGE}/VLCVideos",)),
    FakeApp("code.name.monkey.retromusic", "Retro Music", "code.name.monkey.retromusic.activities.MainActivity",
            {"/data/data/code.name.monkey.retromusic/databases/playlist.db": RETRO_PLAYLISTS,
             "/data/data/code.name.monkey.retromusic/databases/music_playback_state.db": RETRO_PLAYBACK}),
    FakeApp("com.dimowner.audiorecorder", "Audio Recorder", "com.dimowner.audiorecorder.app.main.MainActivity",
            folders=(f"{STORAGE}/Android/data/com.dimowner.audiorecorder/files/Music/records",)),
    FakeApp("com.simplemobiletools.gallery.pro", "Simple Gallery Pro",
            "com.simplemobiletools.gallery.pro.activities.MainActivity"),
    FakeApp("com.simplemobiletools.draw.pro", "Simple Draw Pro", "com.simplemobiletools.draw.pro.activities.MainActivity"),
    FakeApp("com.android.camera2", "Camera", "com.android.camera.CameraActivity"),
    FakeApp("com.google.android.dialer", "Phone", "com.google.android.dialer.extensions.GoogleDialtactsActivity"),
)
"""Apps without screens of their own in the virtual device (a title bar only), by package."""


def create_app_data(fake: FakeApp, host_path, clear: bool = False) -> None:
    """Create the app's databases (if missing) and folders, as its first start does."""
    for folder in fake.folders:
        host_path(folder).mkdir(parents=True, exist_ok=True)
    for device_path, statements in fake.databases.items():
        path: Path = host_path(device_path)
        if path.exists() and not clear:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(path)
        try:
            connection.execute("PRAGMA synchronous=OFF")
            if fake.wal:
                connection.execute("PRAGMA journal_mode=WAL")
            for statement in statements:
                connection.execute(statement)
            connection.commit()
        finally:
            connection.close()


def create_telephony_data(host_path) -> None:
    path: Path = host_path(TELEPHONY_DB)
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    try:
        for statement in SMS:
            connection.execute(statement)
        connection.commit()
    finally:
        connection.close()


def db(device, device_path: str) -> sqlite3.Connection:
    """A connection to a device database, for tests to write the state an agent reaches."""
    connection = sqlite3.connect(device.host_path(device_path))
    connection.execute("PRAGMA synchronous=OFF")  # the fake's disk needs no durability
    connection.row_factory = sqlite3.Row
    return connection
