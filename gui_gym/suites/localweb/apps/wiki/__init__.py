"""The docs / wiki site app: an encyclopedia with a section tree, search, articles with
infoboxes and tables, section editing, history and restores, talk pages and recent changes,
with the task templates that use them."""

from gui_gym.suites.localweb.apps.wiki.app import WikiApp
from gui_gym.suites.localweb.apps.wiki.flows import CompareAndCreate, RevertVandalism, TalkRequest
from gui_gym.suites.localweb.apps.wiki.tasks import (
    EventRiverTributary, FixTypo, InfoboxFact, ReplyOnTalk, ResolveThread, WatchPage)

APP = WikiApp()
TEMPLATES = [InfoboxFact, WatchPage, ResolveThread, EventRiverTributary, FixTypo, ReplyOnTalk,
             CompareAndCreate, RevertVandalism, TalkRequest]
