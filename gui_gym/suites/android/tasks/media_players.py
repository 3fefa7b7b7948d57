"""Retro Music and VLC tasks (AndroidWorld's ``single/retro_music.py`` and ``single/vlc.py``).

Both apps keep playlists in SQLite. Retro Music: ``playlist.db`` (``PlaylistEntity`` and its
``SongEntity`` rows, in insertion order) and ``music_playback_state.db`` (``playing_queue``);
VLC: ``vlc_media.db`` (``Playlist``, ``Media``, ``PlaylistMediaRelation`` with positions). A
playlist is right when it holds exactly the songs or files in order (its name matched
fuzzily); the queue when it lists exactly the songs in order; the duration task when the one
playlist lasts 45 to 50 minutes. Set-up empties shared storage and the playlist tables, and
writes the songs (tagged silent MP3s of 3 to 5 minutes) or videos (Motion-JPEG MP4s of 20 to
180 seconds) the task names, among noise ones.
"""

from __future__ import annotations

import random
from typing import Any

from gui_gym.suites.android import generation, media
from gui_gym.suites.android.device import Device
from gui_gym.suites.android.device_files import DOWNLOAD, MUSIC, STORAGE
from gui_gym.suites.android.tasks.base import AndroidWorldTask, CompositeTask
from gui_gym.suites.android.tasks.rows import playlist_matches

RETRO = "retro music"
PLAYLIST_DB = "/data/data/code.name.monkey.retromusic/databases/playlist.db"
PLAYBACK_DB = "/data/data/code.name.monkey.retromusic/databases/music_playback_state.db"
VLC = "vlc"
VLC_DB = "/data/data/org.videolan.vlc/app_db/vlc_media.db"
VLC_VIDEOS = f"{STORAGE}/VLCVideos"
SONGS = ("Paper Lanterns", "Northern Lights", "Salt and Honey", "Glass Harbor", "Slow Parade", "Midnight Tram",
         "Quiet Engines", "Copper Sky", "Small Hours", "Long Way Home", "Amber Fields", "Falling Upward",
         "Harbor Lights", "Violet Hour", "After the Rain", "Open Windows", "Neon Orchard", "Static Hearts",
         "Wild Geese", "Half Moon Bay", "Marble Steps", "Winter Bloom", "Echo Valley", "Soft Machines",
         "Lighthouse Keeper", "River of Stars", "Paper Planes", "Blue Hour", "Cinder Road", "Velvet Morning",
         "Stone Garden", "Tidal Lines", "Summer Static", "Golden Thread", "Night Swimming")
MUSIC_THEMES = ("Chill Beats", "Morning Vibes", "Workout Energy", "Study Sessions", "Golden Oldies", "Indie Gems",
                "Rock Anthems", "Electronic Waves", "Jazz Classics", "Hip Hop Hits", "Country Roads", "Classical Moods",
                "Pop Essentials", "Latin Grooves", "Reggae Rhythms", "Soulful Sounds", "Blues Vibes", "Party Mix",
                "Tranquil Tunes", "Acoustic Sessions", "Vintage Vinyl", "Coffeehouse Jazz", "Rainy Day Relax",
                "Road Trip Anthems", "Sleepytime Songs")
VIDEO_THEMES = ("Adventure", "Comedy", "Daily Routines", "Documentary Insights", "Epic Moments", "Family Gatherings",
                "Fitness Challenges", "Gaming Sessions", "How To", "Mystery and Thrills", "Recipe Collection",
                "Road Trips", "Summer Highlights", "Tech Reviews", "Travel Guide", "Ultimate Fails")
VIDEO_QUALIFIERS = ("Essentials", "Favorites", "Marathon", "Playlist", "Series", "Specials", "Ultimate Collection")
RETRO_PLAYLIST_QUERY = """
    SELECT pe.playlist_name AS playlist_name, se.title AS media_file_name, se.duration AS duration_ms,
           ROW_NUMBER() OVER (PARTITION BY pe.playlist_name ORDER BY se.song_key) - 1 AS order_in_playlist
    FROM PlaylistEntity pe JOIN SongEntity se ON pe.playlist_id = se.playlist_creator_id
    ORDER BY pe.playlist_name, order_in_playlist"""
VLC_PLAYLIST_QUERY = """
    SELECT Playlist.name AS playlist_name, Media.filename AS media_file_name,
           PlaylistMediaRelation.position AS order_in_playlist
    FROM PlaylistMediaRelation
    JOIN Playlist ON Playlist.id_playlist = PlaylistMediaRelation.playlist_id
    JOIN Media ON Media.id_media = PlaylistMediaRelation.media_id
    ORDER BY Playlist.name, PlaylistMediaRelation.position"""


def stem(file_name: str) -> str:
    return file_name.split(".")[0]


# ---- Retro Music ----------------------------------------------------------------------------------

def clear_retro_playlists(device: Device) -> None:
    device.change_database(PLAYLIST_DB, RETRO, [('DELETE FROM "PlaylistEntity"', ()), ('DELETE FROM "SongEntity"', ())],
                           table="SongEntity")


def write_song(device: Device, rng: random.Random, file_name: str, duration_ms: int) -> None:
    song = media.silent_mp3(duration_ms, title=stem(file_name), artist=rng.choice(generation.GIVEN_NAMES))
    device.write_file(f"{MUSIC}/{file_name}", song, world_writable=True)


def scan_music(device: Device) -> None:
    device.media_scan(f"{STORAGE}/Music")
    device.close_app(RETRO)


class RetroCreatePlaylist(AndroidWorldTask):
    name, complexity, app_names = "RetroCreatePlaylist", 2.4, (RETRO,)
    template = 'Create a playlist in Retro Music titled "{playlist_name}" with the following songs, in order: {names}'

    @classmethod
    def generate_random_params(cls, rng: random.Random, count: tuple[int, int] = (2, 5)) -> dict[str, Any]:
        files = [f"{title}.mp3" for title in rng.sample(SONGS, 15)]
        n = rng.randint(*count)
        return {"playlist_name": f"{rng.choice(MUSIC_THEMES)} {rng.randint(1, 999)}", "files": files[:n],
                "noise_files": files[n:], "names": ", ".join(stem(f) for f in files[:n])}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_internal_storage()
        clear_retro_playlists(device)
        for file_name in self.params["files"] + self.params["noise_files"]:
            write_song(device, self.rng, file_name, self.rng.randint(3 * 60 * 1000, 5 * 60 * 1000))
        scan_music(device)

    def playlist(self, device: Device) -> list[dict[str, Any]]:
        return device.query(PLAYLIST_DB, RETRO_PLAYLIST_QUERY) or []

    def is_successful(self, device: Device) -> float:
        return float(playlist_matches(self.playlist(device), self.params["playlist_name"],
                                      [stem(f) for f in self.params["files"]]))

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_internal_storage()
        clear_retro_playlists(device)


class RetroPlayingQueue(RetroCreatePlaylist):
    name, complexity = "RetroPlayingQueue", 3.2
    template = "Add the following songs, in order, {names} to my playing queue in Retro music."

    def is_successful(self, device: Device) -> float:
        queue = [r["title"] for r in device.query(PLAYBACK_DB, "SELECT title FROM playing_queue") or []]
        return float(queue == [stem(f) for f in self.params["files"]])


class RetroSavePlaylist(RetroCreatePlaylist):
    """Half for the playlist, half for its export to Download/<name>.m3u."""

    name, complexity = "RetroSavePlaylist", 5
    template = ('Create a playlist in Retro Music titled "{playlist_name}" with the following songs, in order: {names}. '
                "Then export the playlist to the Downloads directory on the device.")

    def is_successful(self, device: Device) -> float:
        exported = device.exists(f"{DOWNLOAD}/{self.params['playlist_name']}.m3u")
        return (super().is_successful(device) + float(exported)) / 2


def parts_summing_to(rng: random.Random, total: int, parts: int) -> list[int]:
    """`parts` non-negative integers that add up to `total`."""
    cuts = sorted(rng.randint(0, total) for _ in range(parts - 1))
    edges = [0, *cuts, total]
    return [edges[n + 1] - edges[n] for n in range(parts)]


class RetroPlaylistDuration(RetroCreatePlaylist):
    """The task's songs add up to 47.5 minutes, so a 45 to 50 minute playlist exists.

    As in AndroidWorld, its set-up skips the common one (clock, app snapshots, emptying
    storage): it only empties the playlist tables and writes the songs."""

    name, complexity = "RetroPlaylistDuration", 3
    template = ('Create a playlist in Retro Music titled "{playlist_name}" with a duration between 45 and 50 minutes '
                "using the provided songs.")

    @classmethod
    def generate_random_params(cls, rng: random.Random, count: tuple[int, int] = (9, 11)) -> dict[str, Any]:
        return super().generate_random_params(rng, count)

    def initialize_task(self, device: Device) -> None:
        clear_retro_playlists(device)
        durations = parts_summing_to(self.rng, int(47.5 * 60 * 1000), len(self.params["files"]))
        for file_name, duration in zip(self.params["files"], durations):
            write_song(device, self.rng, file_name, duration)
        for file_name in self.params["noise_files"]:
            write_song(device, self.rng, file_name, self.rng.randint(3 * 60 * 1000, 5 * 60 * 1000))
        scan_music(device)

    def is_successful(self, device: Device) -> float:
        songs = self.playlist(device)
        if any(s["playlist_name"] != self.params["playlist_name"] for s in songs):
            return 0.0
        return float(45 * 60 * 1000 <= sum(s["duration_ms"] for s in songs) <= 50 * 60 * 1000)


# ---- VLC ------------------------------------------------------------------------------------------

def clear_vlc_playlists(device: Device) -> None:
    device.change_database(VLC_DB, VLC, [(f'DELETE FROM "{t}"', ()) for t in ("Playlist", "Media",
                                                                               "PlaylistMediaRelation")],
                           table="PlaylistMediaRelation")


class VlcCreatePlaylist(AndroidWorldTask):
    name, complexity, app_names = "VlcCreatePlaylist", 2.8, (VLC,)
    template = ('Create a playlist titled "{playlist_name}" with the following files in VLC (located in Internal '
                "Memory/VLCVideos), in order: {files_list}")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        n = rng.randint(2, 5)
        files = [generation.video_file_name(rng) for _ in range(n)]
        return {"playlist_name": f"{rng.choice(VIDEO_THEMES)} {rng.choice(VIDEO_QUALIFIERS)}", "files": files,
                "noise_files": [generation.video_file_name(rng) for _ in range(n)], "files_list": ", ".join(files)}

    def setup_files(self, device: Device) -> None:
        for n, file_name in enumerate(self.params["files"] + self.params["noise_files"]):
            video = media.message_video([generation.random_string(self.rng, 10)], self.rng.randint(20, 180), seed=n)
            device.write_file(f"{VLC_VIDEOS}/{file_name}", video, world_writable=True)

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_internal_storage()
        device.clear_directory(VLC_VIDEOS)
        clear_vlc_playlists(device)
        self.setup_files(device)

    def is_successful(self, device: Device) -> float:
        rows = device.query(VLC_DB, VLC_PLAYLIST_QUERY) or []
        return float(playlist_matches(rows, self.params["playlist_name"], self.params["files"]))

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_internal_storage()
        device.clear_directory(VLC_VIDEOS)
        clear_vlc_playlists(device)


class VlcCreateTwoPlaylists(CompositeTask):
    """Two playlists; half the score each."""

    name, complexity, app_names = "VlcCreateTwoPlaylists", 4.8, (VLC,)
    template = ('Create a playlist titled "{playlist_name1}" with the following files in VLC (located in Internal '
                "Memory/VLCVideos), in order: {files1_list}. And then, create a playlist titled \"{playlist_name2}\" "
                "with the following files in VLC, in order: {files2_list}.")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        first, second = (VlcCreatePlaylist.generate_random_params(rng) for _ in range(2))
        return {"playlist_name1": first["playlist_name"], "files1": first["files"], "noise_files1": first["noise_files"],
                "playlist_name2": second["playlist_name"], "files2": second["files"],
                "noise_files2": second["noise_files"], "files1_list": first["files_list"],
                "files2_list": second["files_list"]}

    def parts(self) -> list[AndroidWorldTask]:
        return [VlcCreatePlaylist({"playlist_name": self.params[f"playlist_name{n}"], "files": self.params[f"files{n}"],
                                   "noise_files": self.params[f"noise_files{n}"], "files_list": self.params[f"files{n}_list"],
                                   "seed": self.params.get("seed")})
                for n in (1, 2)]

    def initialize_task(self, device: Device) -> None:
        AndroidWorldTask.initialize_task(self, device)
        first, second = self._parts = self.parts()
        first.initialize_task(device)
        second.setup_files(device)  # the tables are not emptied again

    def tear_down(self, device: Device) -> None:
        AndroidWorldTask.tear_down(self, device)
        self._parts[0].tear_down(device)


TASKS = (RetroCreatePlaylist, RetroPlayingQueue, RetroSavePlaylist, RetroPlaylistDuration, VlcCreatePlaylist,
         VlcCreateTwoPlaylists)
