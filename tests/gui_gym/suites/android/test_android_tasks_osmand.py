"""OsmAnd tasks on the virtual phone: favourites and tracks as GPX files, markers in the
app's database, matched to the place by name or within 0.001 degrees."""

from __future__ import annotations

import pytest

from tests.fakes.android_world import fake_phone
from tests.fakes.app_data import db
from gui_gym.suites.android.tasks.osmand import PLACES, location_coords

FILES = "/storage/emulated/0/Android/data/net.osmand/files"
GPX = '<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">{}</gpx>'


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        p.device.show("net.osmand")  # its first start makes its folders and database
        yield p


def wpt(lat, lon, name="Somewhere"):
    return f'<wpt lat="{lat}" lon="{lon}"><name>{name}</name></wpt>'


def test_favorite(phone):
    favorites = phone.device.host_path(f"{FILES}/favorites/favorites.gpx")
    favorites.write_text(GPX.format(wpt(1, 2, "Old favourite")))
    task = phone.task("OsmAndFavorite", seed=2)
    assert "Old favourite" not in favorites.read_text() and phone.score(task) == 0.0
    lat, lon = location_coords(task.params["location"])
    favorites.write_text(GPX.format(wpt(lat + 0.002, lon)))  # 200 m off
    assert phone.score(task) == 0.0
    favorites.write_text(GPX.format(wpt(lat + 0.0004, lon - 0.0004)))
    assert phone.score(task) == 1.0


def test_marker(phone):
    task = phone.task("OsmAndMarker", seed=3)
    assert phone.score(task) == 0.0
    lat, lon = location_coords(task.params["location"])
    with db(phone.device, "/data/data/net.osmand/databases/map_markers_db") as connection:
        connection.execute("INSERT INTO map_markers (marker_id, marker_lat, marker_lon, title) VALUES (?, ?, ?, ?)",
                           ("m1", lat, lon, "Marker"))
    assert phone.score(task) == 1.0


def test_track(phone):
    task = phone.task("OsmAndTrack", seed=1)
    assert phone.score(task) == 0.0
    points = [PLACES[w] for w in task.params["waypoints"]]
    segment = lambda pts: "<trk><trkseg>" + "".join(f'<trkpt lat="{a}" lon="{b}"/>' for a, b in pts) + "</trkseg></trk>"  # noqa: E731
    tracks = phone.device.host_path(f"{FILES}/tracks")
    (tracks / "reversed.gpx").write_text(GPX.format(segment(points[::-1])))
    assert phone.score(task) == 0.0
    (tracks / "route.gpx").write_text(GPX.format(segment([(47.0, 9.0), points[0], (47.15, 9.52), *points[1:]])))
    assert phone.score(task) == 1.0
    task.teardown(phone.backend)
    assert not any(tracks.iterdir())
