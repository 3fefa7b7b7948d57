"""LocalWeb's mail client: folders and custom labels, a paginated message list with bulk
actions, reading, compose with contact autocomplete and attachments from a files dialog,
reply/forward, search and a contacts directory; nine task templates from starring a message
to multi-page forwarding and summarising flows."""

from __future__ import annotations

from gui_gym.suites.localweb.apps.mail.app import MailApp
from gui_gym.suites.localweb.apps.mail.tasks_easy import DeleteMail, MeetingTime, StarMail
from gui_gym.suites.localweb.apps.mail.tasks_hard import ForwardAttachment, MailCompany, SummarizeDetails
from gui_gym.suites.localweb.apps.mail.tasks_medium import FileProject, ReplyLatest, SendFile

APP = MailApp()
TEMPLATES = [StarMail, MeetingTime, DeleteMail, ReplyLatest, FileProject, SendFile, ForwardAttachment, SummarizeDetails,
             MailCompany]
"""Easy, medium, hard: the order `load_apps` lists them in."""
