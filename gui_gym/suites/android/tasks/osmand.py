"""OsmAnd tasks (AndroidWorld's ``single/osmand.py``): a favourite, a map marker, a track.

The device holds OsmAnd's offline map of Liechtenstein; a location is a place name on it or
"lat, lon". A favourite must be a waypoint in ``favorites/favorites.gpx`` named after the place
or within 0.001 degrees of it; a marker a row of ``map_markers`` within 0.001 degrees; a track
a GPX file in ``tracks/`` whose points pass the waypoints in order. The coordinates are where
OsmAnd's map puts these places (AndroidWorld's table), so a marker set by searching the name
matches.
"""

from __future__ import annotations

import posixpath
import random
import re
import xml.etree.ElementTree as ET
from typing import Any, Iterable, Iterator

from gui_gym.suites.android.device import Device
from gui_gym.suites.android.tasks.base import AndroidWorldTask
from gui_gym.suites.android.tasks.rows import SQLiteTask

FILES = "/data/media/0/Android/data/net.osmand/files"
LEGACY_FILES = "/data/data/net.osmand/files"
FAVORITES = f"{FILES}/favorites/favorites.gpx"
LEGACY_FAVORITES = f"{LEGACY_FILES}/favourites_bak.gpx"
BACKUPS = f"{LEGACY_FILES}/backup"
TRACKS = f"{FILES}/tracks"
GPX = "http://www.topografix.com/GPX/1/1"
NS = {"gpx": GPX}
PLACES = {
    "Balzers, Liechtenstein": (47.0688832, 9.5061564), "Bendern, Liechtenstein": (47.2122151, 9.5062101),
    "Malbun, Liechtenstein": (47.1026191, 9.6083057), "Nendeln, Liechtenstein": (47.1973857, 9.5430636),
    "Oberplanken, Liechtenstein": (47.1784977, 9.5450163), "Planken, Liechtenstein": (47.1858882, 9.5452201),
    "Rotenboden, Liechtenstein": (47.1275785, 9.5387131), "Ruggell, Liechtenstein": (47.23976, 9.5262837),
    "Schaan, Liechtenstein": (47.1663432, 9.5103085), "Schaanwald, Liechtenstein": (47.2165476, 9.5699984),
    "Schönberg, Liechtenstein": (47.1303814, 9.5930117), "Triesen, Liechtenstein": (47.106997, 9.5274854),
}
DELTA_DEG = 0.001


def coords_match(a: tuple[float, float], b: tuple[float, float], delta_deg: float = DELTA_DEG) -> bool:
    return all(abs(x - y) < delta_deg for x, y in zip(a, b))


def parse_coords(location: str) -> tuple[float, float] | None:
    numbers = tuple(map(float, re.findall(r"-?\d*\.?\d+", location)))
    return numbers if len(numbers) == 2 else None


def location_coords(location: str) -> tuple[float, float] | None:
    return PLACES.get(location) or parse_coords(location)


def random_locations(rng: random.Random, names_only: bool = False, count: int = 1) -> list[str]:
    names = rng.sample(list(PLACES), count)
    if names_only or rng.getrandbits(1):
        return names
    return [f"{PLACES[n][0]}, {PLACES[n][1]}" for n in names]


class _OsmAnd(AndroidWorldTask):
    app_names = ("osmand",)


def clear_favorites(device: Device) -> None:
    """Every waypoint removed from OsmAnd's favourites files (which stay); backups gone."""
    ET.register_namespace("", GPX)
    device.clear_directory(BACKUPS)
    for path in (FAVORITES, LEGACY_FAVORITES):
        text = device.read_text(path)
        if text is None:
            continue
        root = ET.fromstring(text)
        for waypoint in root.findall("gpx:wpt", NS):
            root.remove(waypoint)
        device.write_file(path, ET.tostring(root, xml_declaration=True, encoding="UTF-8"), world_writable=True)


def waypoint_matches(waypoint: ET.Element, location: str) -> bool:
    name = waypoint.find("gpx:name", NS)
    if name is not None and name.text and location in name.text:
        return True
    coords = location_coords(location)
    return coords is not None and coords_match((float(waypoint.get("lat")), float(waypoint.get("lon"))), coords)


class OsmAndFavorite(_OsmAnd):
    name, complexity = "OsmAndFavorite", 1.3
    template = "Add a favorite location marker for {location} in the OsmAnd maps app."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"location": random_locations(rng)[0]}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        clear_favorites(device)

    def is_successful(self, device: Device) -> float:
        text = device.read_text(FAVORITES)
        if text is None:
            return 0.0
        return float(any(waypoint_matches(w, self.params["location"]) for w in ET.fromstring(text).findall("gpx:wpt", NS)))

    def tear_down(self, device: Device) -> None:
        clear_favorites(device)
        super().tear_down(device)


class OsmAndMarker(_OsmAnd, SQLiteTask):
    name, complexity = "OsmAndMarker", 2.0
    template = "Add a location marker for {location} in the OsmAnd maps app."
    db_path, table, db_key, db_app = "/data/data/net.osmand/databases/map_markers_db", "map_markers", "marker_id", "osmand"

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"location": random_locations(rng)[0]}

    def is_successful(self, device: Device) -> float:
        coords = location_coords(self.params["location"])
        return float(coords is not None and any(coords_match((r["marker_lat"], r["marker_lon"]), coords)
                                                for r in self.list_rows(device)))


def track_points(root: ET.Element) -> Iterator[tuple[float, float]]:
    for track in root.findall("gpx:trk", NS):
        for segment in track.findall("gpx:trkseg", NS):
            for point in segment.findall("gpx:trkpt", NS):
                yield float(point.get("lat")), float(point.get("lon"))


def passes_in_order(points: Iterable[tuple[float, float]], targets: list[tuple[float, float]]) -> bool:
    remaining = iter(targets)
    target = next(remaining)
    for point in points:
        if coords_match(point, target):
            target = next(remaining, None)
            if target is None:
                return True
    return False


class OsmAndTrack(_OsmAnd):
    name, complexity = "OsmAndTrack", 12
    template = "Save a track with waypoints {waypoint_list} in the OsmAnd maps app in the same order as listed."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        waypoints = random_locations(rng, names_only=True, count=rng.randint(2, 4))
        return {"track_name": f"{waypoints[0]} to {waypoints[-1]}", "waypoints": waypoints,
                "waypoint_list": ", ".join(waypoints)}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_directory(TRACKS)
        missing = [w for w in self.params["waypoints"] if location_coords(w) is None]
        if missing:
            raise ValueError(f"no coordinates for waypoint(s) {missing}: give place names OsmAnd's map of "
                             f"Liechtenstein has ({sorted(PLACES)}) or 'lat, lon'")

    def is_successful(self, device: Device) -> float:
        targets = [location_coords(w) for w in self.params["waypoints"]]
        for name in device.names_in(TRACKS):
            text = device.read_text(posixpath.join(TRACKS, name))
            if text and passes_in_order(track_points(ET.fromstring(text)), targets):
                return 1.0
        return 0.0

    def tear_down(self, device: Device) -> None:
        device.clear_directory(TRACKS)
        super().tear_down(device)


TASKS = (OsmAndFavorite, OsmAndMarker, OsmAndTrack)
