"""OSWorld's ``googledrive_file`` getter: files of the Google Drive account OSWorld's tasks
use, fetched with the Drive v2 REST API as OSWorld's PyDrive calls it.

OSWorld's ``settings.yml`` (PyDrive's settings) names a saved OAuth credentials file (with a
refresh token); gui-gym reads both from the task set's ``settings/googledrive/`` folder (the
``evaluation_examples/`` prefix of OSWorld's paths is that folder). A file is found by a chain
of queries, each searched inside the folder the previous one found (from the Drive's root),
the first hit taken, and downloaded (``downloadUrl``, else the export link for its own MIME
type); a file that cannot be found or downloaded is None, as in OSWorld.
"""

from __future__ import annotations

import datetime
import json
import logging
from pathlib import Path
from typing import Any

import httpx

from gui_gym.errors import MissingResourceError
from gui_gym.suites.osworld.context import EpisodeContext
from gui_gym.suites.osworld.metrics.common import require

logger = logging.getLogger(__name__)

DRIVE_API = "https://www.googleapis.com/drive/v2"
DEFAULT_SETTINGS = "evaluation_examples/settings/googledrive/settings.yml"
TIMEOUT_S = 60.0


def _task_set_file(ctx: EpisodeContext, name: str) -> Path:
    """A path of OSWorld's repository (``evaluation_examples/...``) in this task set."""
    path = Path(name)
    if path.is_absolute():
        return path
    parts = path.parts[1:] if path.parts and path.parts[0] == "evaluation_examples" else path.parts
    return ctx.spec.folder.parent.parent.joinpath(*parts)


class DriveSession:
    """An authorised Drive v2 client for one evaluation."""

    def __init__(self, ctx: EpisodeContext, settings_file: str):
        settings_path = _task_set_file(ctx, settings_file)
        if not settings_path.is_file():
            raise MissingResourceError(
                f"googledrive_file needs OSWorld's Google Drive settings; put settings.yml (PyDrive's, naming a saved "
                f"credentials file) at {settings_path}")
        settings = require("yaml", "pyyaml", "googledrive_file").safe_load(settings_path.read_text()) or {}
        credentials_path = _task_set_file(ctx, settings.get("save_credentials_file", "credentials.json"))
        if not credentials_path.is_file():
            raise MissingResourceError(f"googledrive_file: the saved Google credentials {credentials_path} named by "
                                       f"{settings_path} are not there")
        self.credentials = json.loads(credentials_path.read_text())
        self.http = httpx.Client(timeout=TIMEOUT_S, follow_redirects=True)
        self.token = self._access_token()

    def _access_token(self) -> str:
        creds = self.credentials
        expiry = creds.get("token_expiry")
        if creds.get("access_token") and expiry:
            when = datetime.datetime.fromisoformat(expiry.rstrip("Z")).replace(tzinfo=datetime.timezone.utc)
            if when > datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=1):
                return creds["access_token"]
        reply = self.http.post(creds.get("token_uri", "https://oauth2.googleapis.com/token"), data={
            "grant_type": "refresh_token", "refresh_token": creds["refresh_token"], "client_id": creds["client_id"],
            "client_secret": creds["client_secret"]})
        reply.raise_for_status()
        return reply.json()["access_token"]

    def _get(self, url: str, **params: Any) -> httpx.Response:
        reply = self.http.get(url, params=params or None, headers={"Authorization": f"Bearer {self.token}"})
        reply.raise_for_status()
        return reply

    def fetch(self, queries: list[str], target: Path) -> str | None:
        """Follow the query chain from the root; download the last hit to `target`."""
        parent, found = "root", None
        try:
            for query in queries:
                items = self._get(f"{DRIVE_API}/files", q=f'( {query} ) and "{parent}" in parents').json().get("items", [])
                if not items:
                    return None
                found = items[0]
                parent = found["id"]
            link = found.get("downloadUrl") or (found.get("exportLinks") or {}).get(found.get("mimeType"))
            if not link:
                return None
            target.write_bytes(self._get(link).content)
        except (httpx.HTTPError, KeyError, ValueError) as exc:
            logger.info("googledrive_file: %s", exc)
            return None
        return str(target)

    def close(self) -> None:
        self.http.close()


def _path_queries(path: list[str]) -> list[str]:
    """OSWorld's queries for a Drive path: folders by title, then the file by title."""
    return [f"title = '{name}' and mimeType = 'application/vnd.google-apps.folder' and trashed = false"
            if index < len(path) - 1 else f"title = '{name}' and trashed = false" for index, name in enumerate(path)]


def get_googledrive_file(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """``query`` (a query chain) or ``path`` (folder names, then the file's), or their
    ``_list`` forms for several files with a list ``dest``."""
    session = DriveSession(ctx, config.get("settings_file", DEFAULT_SETTINGS))
    try:
        if "query" in config:
            return session.fetch(config["query"], ctx.scratch / config["dest"])
        if "path" in config:
            return session.fetch(_path_queries(config["path"]), ctx.scratch / config["dest"])
        if "query_list" in config:
            return [session.fetch(q, ctx.scratch / d) for q, d in zip(config["query_list"], config["dest"])]
        return [session.fetch(_path_queries(p), ctx.scratch / d) for p, d in zip(config["path_list"], config["dest"])]
    finally:
        session.close()
