"""The docs / wiki site app: an encyclopedia with a section tree, search, articles with
infoboxes and tables, section editing, history and restores, talk pages and recent changes,
with the task templates that use them."""

from __future__ import annotations

from gui_gym.suites.localweb.apps.wiki.app import WikiApp
from gui_gym.suites.localweb.apps.wiki.tasks_easy import InfoboxFact, ResolveThread, WatchPage
from gui_gym.suites.localweb.apps.wiki.tasks_hard import CompareAndCreate, RevertVandalism, TalkRequest
from gui_gym.suites.localweb.apps.wiki.tasks_medium import EventRiverTributary, FixTypo, ReplyOnTalk

APP = WikiApp()
TEMPLATES = [InfoboxFact, WatchPage, ResolveThread, EventRiverTributary, FixTypo, ReplyOnTalk, CompareAndCreate,
             RevertVandalism, TalkRequest]
"""Easy, medium, hard: the order `load_apps` lists them in."""
