"""Retro Music and VLC tasks on the virtual phone: songs and videos written to storage over
adb, playlists and queues written straight into the apps' databases as the apps would."""

from __future__ import annotations

import mutagen.mp3
import mutagen.mp4
import pytest

from tests.fakes.android_world import fake_phone
from tests.fakes.app_data import db

PLAYLISTS = "/data/data/code.name.monkey.retromusic/databases/playlist.db"
PLAYBACK = "/data/data/code.name.monkey.retromusic/databases/music_playback_state.db"
VLC = "/data/data/org.videolan.vlc/app_db/vlc_media.db"


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


def retro_playlist(phone, name, titles, durations=None):
    with db(phone.device, PLAYLISTS) as connection:
        playlist = connection.execute("INSERT INTO PlaylistEntity (playlist_name) VALUES (?)", (name,)).lastrowid
        for n, title in enumerate(titles):
            connection.execute(
                "INSERT INTO SongEntity (playlist_creator_id, id, title, track_number, year, duration, data, "
                "date_modified, album_id, album_name, artist_id, artist_name) VALUES (?, ?, ?, 0, 0, ?, ?, 0, 0, '', 0, '')",
                (playlist, n, title, (durations or [200000] * len(titles))[n], f"/storage/emulated/0/Music/{title}.mp3"))


def test_retro_create_playlist(phone):
    task = phone.task("RetroCreatePlaylist", seed=1)
    songs = sorted(p.name for p in phone.device.host_path("/sdcard/Music").iterdir())
    assert songs == sorted(task.params["files"] + task.params["noise_files"]) and len(songs) == 15
    tags = mutagen.mp3.MP3(phone.device.host_path(f"/sdcard/Music/{task.params['files'][0]}"))
    assert str(tags.tags["TIT2"]) == task.params["files"][0][:-4] and 180 <= tags.info.length <= 300
    assert ("broadcast", "android.intent.action.MEDIA_SCANNER_SCAN_FILE", "file:///storage/emulated/0/Music") in \
        phone.device.events
    assert phone.score(task) == 0.0
    titles = [f[:-4] for f in task.params["files"]]
    retro_playlist(phone, task.params["playlist_name"], titles[::-1])
    assert phone.score(task) == float(len(titles) == 1)  # the wrong order
    clear = phone.task("RetroCreatePlaylist", seed=1)
    retro_playlist(phone, clear.params["playlist_name"].lower(), titles)
    assert phone.score(clear) == 1.0


def test_retro_playing_queue(phone):
    task = phone.task("RetroPlayingQueue", seed=2)
    assert phone.score(task) == 0.0
    with db(phone.device, PLAYBACK) as connection:
        for n, name in enumerate(task.params["files"]):
            connection.execute("INSERT INTO playing_queue (_id, title) VALUES (?, ?)", (n, name[:-4]))
    assert phone.score(task) == 1.0


def test_retro_save_playlist_scores_half_for_each_part(phone):
    task = phone.task("RetroSavePlaylist", seed=3)
    retro_playlist(phone, task.params["playlist_name"], [f[:-4] for f in task.params["files"]])
    assert phone.score(task) == 0.5
    phone.device.host_path(f"/sdcard/Download/{task.params['playlist_name']}.m3u").write_text("#EXTM3U\n")
    assert phone.score(task) == 1.0


def test_retro_playlist_duration(phone):
    task = phone.task("RetroPlaylistDuration", seed=4)
    files = [phone.device.host_path(f"/sdcard/Music/{f}") for f in task.params["files"]]
    lengths_ms = [mutagen.mp3.MP3(f).info.length * 1000 for f in files]
    assert abs(sum(lengths_ms) - 47.5 * 60 * 1000) < 30 * len(files)  # to a frame each
    assert phone.score(task) == 0.0
    retro_playlist(phone, task.params["playlist_name"], [f[:-4] for f in task.params["files"]], [round(x) for x in lengths_ms])
    assert phone.score(task) == 1.0
    retro_playlist(phone, "Another", ["x"])
    assert phone.score(task) == 0.0  # another playlist exists


def vlc_playlist(phone, name, files):
    with db(phone.device, VLC) as connection:
        playlist = connection.execute("INSERT INTO Playlist (name) VALUES (?)", (name,)).lastrowid
        for n, file_name in enumerate(files):
            media = connection.execute("INSERT INTO Media (type, filename) VALUES (1, ?)", (file_name,)).lastrowid
            connection.execute("INSERT INTO PlaylistMediaRelation (media_id, playlist_id, position) VALUES (?, ?, ?)",
                               (media, playlist, n))


def test_vlc_create_playlist(phone):
    task = phone.task("VlcCreatePlaylist", seed=5)
    video = phone.device.host_path(f"/sdcard/VLCVideos/{task.params['files'][0]}")
    assert 20 <= mutagen.mp4.MP4(video).info.length <= 180
    assert len(list(phone.device.host_path("/sdcard/VLCVideos").iterdir())) == 2 * len(task.params["files"])
    assert phone.score(task) == 0.0
    vlc_playlist(phone, task.params["playlist_name"], task.params["files"][:-1])
    assert phone.score(task) == 0.0
    task = phone.task("VlcCreatePlaylist", seed=5)
    vlc_playlist(phone, task.params["playlist_name"], task.params["files"])
    assert phone.score(task) == 1.0


def test_vlc_two_playlists(phone):
    task = phone.task("VlcCreateTwoPlaylists", seed=6)
    names = {p.name for p in phone.device.host_path("/sdcard/VLCVideos").iterdir()}
    assert set(task.params["files1"] + task.params["files2"]) <= names
    vlc_playlist(phone, task.params["playlist_name2"], task.params["files2"])
    assert phone.score(task) == 0.5
    vlc_playlist(phone, task.params["playlist_name1"], task.params["files1"])
    assert phone.score(task) == 1.0
