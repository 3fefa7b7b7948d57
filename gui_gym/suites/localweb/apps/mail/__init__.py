"""LocalWeb's mail client: folders and custom labels, a paginated message list with bulk
actions, reading, compose with contact autocomplete and attachments from a files dialog,
reply/forward, search and a contacts directory; nine task templates from starring a message
to multi-page forwarding and summarising flows."""

from __future__ import annotations

from gui_gym.suites.localweb.apps.mail.app import MailApp
from gui_gym.suites.localweb.apps.mail.tasks import DeleteMail, FileProject, MeetingTime, ReplyLatest, SendFile, StarMail
from gui_gym.suites.localweb.apps.mail.tasks_hard import ForwardAttachment, MailCompany, SummarizeDetails

APP = MailApp()
TEMPLATES = [StarMail, MeetingTime, DeleteMail, ReplyLatest, FileProject, SendFile,
             ForwardAttachment, SummarizeDetails, MailCompany]
