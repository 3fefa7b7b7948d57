"""`CalendarApp`: the routes of the calendar and booking app. Pages are GETs; changes are
native form posts through `store` and `booking`, answered with a redirect (post/redirect/get)
or, when refused, with the same form showing each field's error (422). The one JSON route
feeds the attendees' autocomplete."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gui_gym.suites.localweb.apps.calendar import booking, data, store, views
from gui_gym.suites.localweb.framework import Request, Response, WebApp, html_response, json_response, not_found, redirect

NOTICES = {"saved": "Event saved.", "deleted": "Event deleted.", "booked": "Room booked.", "answered": "Answer sent."}
_MONTH = re.compile(r"^2026-(0[1-9]|1[0-2])$")
FORM_FIELDS = ("title", "date", "start", "end", "room", "description", "repeat", "count", "scope")


def _form(request: Request, fields: tuple[str, ...]) -> dict[str, Any]:
    """The posted fields as the forms name them; attendees arrive as comma-separated addresses."""
    values: dict[str, Any] = {name: request.arg(name) for name in fields}
    values["attendees"] = [a for a in request.arg("attendees").split(",") if a]
    return values


class CalendarApp(WebApp):
    name = "calendar"
    title = "Calendar"
    static_dir = Path(__file__).parent / "static"

    def initial_state(self, seed: int) -> dict[str, Any]:
        return data.initial_state(seed)

    def handle(self, request: Request, state: dict[str, Any]) -> Response:
        parts = [p for p in request.path.strip("/").split("/") if p]
        if parts == ["api", "people"]:
            return json_response(store.suggestions(state, request.arg("q")))
        if request.method == "POST":
            return self._post(parts, request, state)
        return self._page(parts, request, state)

    def _page(self, parts: list[str], request: Request, state: dict[str, Any]) -> Response:
        message = NOTICES.get(request.arg("notice"), "")
        if not parts or parts == ["month"]:
            month = request.arg("m", data.TODAY[:7])
            return html_response(views.month_page(state, month if _MONTH.match(month) else data.TODAY[:7], message))
        if parts == ["week"]:
            return html_response(views.week_page(state, store.parse_day(request.arg("d")) or data.TODAY))
        if parts == ["events"]:
            page_number = request.arg("page", "1")
            return html_response(views.events_page(state, request.arg("q").strip(), int(page_number) if page_number.isdigit() else 1))
        if parts == ["new"]:
            return html_response(views.form_page(state, None, store.parse_day(request.arg("date")) or data.TODAY))
        if len(parts) in (2, 3) and parts[0] == "event":
            event = store.find(state, parts[1])
            if event is None:
                return not_found("event")
            if len(parts) == 2:
                return html_response(views.event_page(state, event, message))
            if parts[2] == "edit" and event["organizer"] == state["me"]["email"]:
                return html_response(views.form_page(state, event, event["date"]))
            return not_found()
        if parts == ["book"]:
            return html_response(booking.rooms_page(state))
        if len(parts) in (2, 3) and parts[0] == "book":
            where = store.room(state, parts[1])
            if where is None:
                return not_found("room")
            day = store.parse_day(request.arg("date")) or data.TODAY
            length = request.arg("duration", "60")
            duration = int(length) if length.isdigit() and int(length) in booking.DURATIONS else 60
            start = request.arg("start")
            if len(parts) == 2:
                return html_response(booking.grid_page(state, where, day, duration, start))
            if parts[2] != "details":
                return not_found()
            if booking.check(state, where["id"], day, start, duration):
                return redirect(f"/calendar/book/{where['id']}?date={day}&duration={duration}&start={start}")
            return html_response(booking.details_page(state, where, day, start, duration))
        return not_found()

    def _post(self, parts: list[str], request: Request, state: dict[str, Any]) -> Response:
        if parts == ["new"]:
            values = _form(request, FORM_FIELDS)
            try:
                event = store.create(state, values)
            except store.CalendarError as exc:
                day = store.parse_day(values["date"]) or data.TODAY
                return html_response(views.form_page(state, None, day, values, exc.errors), 422)
            return redirect(f"/calendar/event/{event['id']}?notice=saved")
        if len(parts) == 3 and parts[0] == "event":
            event = store.find(state, parts[1])
            if event is None:
                return not_found("event")
            try:
                if parts[2] == "edit":
                    values = _form(request, FORM_FIELDS)
                    try:
                        store.update(state, event, values)
                    except store.CalendarError as exc:
                        return html_response(views.form_page(state, event, event["date"], values, exc.errors), 422)
                    return redirect(f"/calendar/event/{event['id']}?notice=saved")
                if parts[2] == "delete":
                    store.delete(state, event, request.arg("scope", "this"))
                    return redirect(f"/calendar/month?m={event['date'][:7]}&notice=deleted")
                if parts[2] == "rsvp":
                    store.answer(state, event, request.arg("value"))
                    return redirect(f"/calendar/event/{event['id']}?notice=answered")
            except store.CalendarError as exc:
                return html_response(views.event_page(state, event, str(exc)), 422)
        if len(parts) == 3 and parts[0] == "book" and parts[2] == "confirm":
            values = _form(request, ("room", "date", "start", "duration", "title", "people", "notes"))
            try:
                event = booking.book(state, values)
            except store.CalendarError as exc:
                where = store.room(state, values["room"])
                day = store.parse_day(values["date"])
                if where is None or day is None or not values["duration"].isdigit():
                    return html_response(booking.rooms_page(state), 422)
                return html_response(booking.details_page(state, where, day, values["start"], int(values["duration"]),
                                                          values, exc.errors), 422)
            return redirect(f"/calendar/event/{event['id']}?notice=booked")
        return not_found()
