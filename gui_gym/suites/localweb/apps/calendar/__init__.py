"""LocalWeb's calendar and room booking app: month and week views, an events list, the event
form (date picker, time lists, room select, attendee autocomplete, repeat) with validation,
and a booking flow over an availability grid; nine task templates from deleting an event to
booking a room on the first day with two free hours."""

from __future__ import annotations

from gui_gym.suites.localweb.apps.calendar.app import CalendarApp
from gui_gym.suites.localweb.apps.calendar.tasks_easy import AnswerInvite, DeleteEvent, EventEnd
from gui_gym.suites.localweb.apps.calendar.tasks_hard import BookRoom, ConflictingRoom, ReworkSeries
from gui_gym.suites.localweb.apps.calendar.tasks_medium import CreateEvent, InvitePeople, Reschedule

APP = CalendarApp()
TEMPLATES = [DeleteEvent, EventEnd, AnswerInvite, CreateEvent, Reschedule, InvitePeople, BookRoom, ConflictingRoom,
             ReworkSeries]
"""Easy, medium, hard: the order `load_apps` lists them in."""
