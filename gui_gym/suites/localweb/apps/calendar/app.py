"""`CalendarApp`: the routes of the calendar and booking app. Pages are GETs; changes are
native form posts through `store`, answered with a redirect (post/redirect/get)
or, when refused, with the same form showing each field's error (422). The one JSON route
feeds the attendees' autocomplete."""

from __future__ import annotations

import re
from typing import Any

from gui_gym.suites.localweb.apps.calendar import data, store, views, views_booking
from gui_gym.suites.localweb.framework import (Request, Response, Routes, WebApp, html_response, json_response,
                                               not_found, redirect)

NOTICES = {"saved": "Event saved.", "deleted": "Event deleted.", "booked": "Room booked.", "answered": "Answer sent."}
_MONTH = re.compile(r"^2026-(0[1-9]|1[0-2])$")
FORM_FIELDS = ("title", "date", "start", "end", "room", "description", "repeat", "count", "scope")


def _form(request: Request, fields: tuple[str, ...]) -> dict[str, Any]:
    """The posted fields as the forms name them; attendees arrive as comma-separated addresses."""
    values: dict[str, Any] = {name: request.arg(name) for name in fields}
    values["attendees"] = [a for a in request.arg("attendees").split(",") if a]
    return values


def _notice(request: Request) -> str:
    return NOTICES.get(request.arg("notice"), "")


routes = Routes()


class CalendarApp(WebApp):
    name = "calendar"
    title = "Calendar"
    static_dir = views.STATIC  # the folder its pages inline their assets from
    routes = routes

    def initial_state(self, seed: int) -> dict[str, Any]:
        return data.initial_state(seed)

    @routes("*", "/api/people")
    def _people_api(self, request: Request, state: dict[str, Any]) -> Response:
        return json_response(store.suggestions(state, request.arg("q")))

    # ---- pages ---------------------------------------------------------------------------

    @routes("GET", "/")
    @routes("GET", "/month")
    def _month(self, request: Request, state: dict[str, Any]) -> Response:
        month = request.arg("m", data.TODAY[:7])
        return html_response(views.month_page(state, month if _MONTH.match(month) else data.TODAY[:7], _notice(request)))

    @routes("GET", "/week")
    def _week(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views.week_page(state, store.parse_day(request.arg("d")) or data.TODAY))

    @routes("GET", "/events")
    def _events(self, request: Request, state: dict[str, Any]) -> Response:
        page_number = request.arg("page", "1")
        return html_response(views.events_page(state, request.arg("q").strip(), int(page_number) if page_number.isdigit() else 1))

    @routes("GET", "/new")
    def _new_form(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views.form_page(state, None, store.parse_day(request.arg("date")) or data.TODAY))

    @routes("GET", "/event/{event_id}")
    def _event(self, request: Request, state: dict[str, Any], event_id: str) -> Response:
        event = store.find(state, event_id)
        if event is None:
            return not_found("event")
        return html_response(views.event_page(state, event, _notice(request)))

    @routes("GET", "/event/{event_id}/edit")
    def _edit_form(self, request: Request, state: dict[str, Any], event_id: str) -> Response:
        event = store.find(state, event_id)
        if event is None:
            return not_found("event")
        if event["organizer"] == state["me"]["email"]:
            return html_response(views.form_page(state, event, event["date"]))
        return not_found()

    @routes("GET", "/book")
    def _rooms(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views_booking.rooms_page(state))

    @routes("GET", "/book/{room_id}")
    @routes("GET", "/book/{room_id}/{step}")
    def _booking(self, request: Request, state: dict[str, Any], room_id: str, step: str = "") -> Response:
        where = store.room(state, room_id)
        if where is None:
            return not_found("room")
        day = store.parse_day(request.arg("date")) or data.TODAY
        length = request.arg("duration", "60")
        duration = int(length) if length.isdigit() and int(length) in store.DURATIONS else 60
        start = request.arg("start")
        if not step:
            return html_response(views_booking.grid_page(state, where, day, duration, start))
        if step != "details":
            return not_found()
        if store.check(state, where["id"], day, start, duration):
            return redirect(f"/calendar/book/{where['id']}?date={day}&duration={duration}&start={start}")
        return html_response(views_booking.details_page(state, where, day, start, duration))

    # ---- form posts ----------------------------------------------------------------------

    @routes("POST", "/new")
    def _create(self, request: Request, state: dict[str, Any]) -> Response:
        values = _form(request, FORM_FIELDS)
        try:
            event = store.create(state, values)
        except store.CalendarError as exc:
            day = store.parse_day(values["date"]) or data.TODAY
            return html_response(views.form_page(state, None, day, values, exc.errors), 422)
        return redirect(f"/calendar/event/{event['id']}?notice=saved")

    @routes("POST", "/event/{event_id}/{action}")
    def _change_event(self, request: Request, state: dict[str, Any], event_id: str, action: str) -> Response:
        event = store.find(state, event_id)
        if event is None:
            return not_found("event")
        try:
            if action == "edit":
                values = _form(request, FORM_FIELDS)
                try:
                    store.update(state, event, values)
                except store.CalendarError as exc:
                    return html_response(views.form_page(state, event, event["date"], values, exc.errors), 422)
                return redirect(f"/calendar/event/{event['id']}?notice=saved")
            if action == "delete":
                store.delete(state, event, request.arg("scope", "this"))
                return redirect(f"/calendar/month?m={event['date'][:7]}&notice=deleted")
            if action == "rsvp":
                store.answer(state, event, request.arg("value"))
                return redirect(f"/calendar/event/{event['id']}?notice=answered")
        except store.CalendarError as exc:
            return html_response(views.event_page(state, event, str(exc)), 422)
        return not_found()

    @routes("POST", "/book/{room_id}/confirm")
    def _book(self, request: Request, state: dict[str, Any], room_id: str) -> Response:
        values = _form(request, ("room", "date", "start", "duration", "title", "people", "notes"))
        try:
            event = store.book(state, values)
        except store.CalendarError as exc:
            where = store.room(state, values["room"])
            day = store.parse_day(values["date"])
            if where is None or day is None or not values["duration"].isdigit():
                return html_response(views_booking.rooms_page(state), 422)
            return html_response(views_booking.details_page(state, where, day, values["start"], int(values["duration"]),
                                                      values, exc.errors), 422)
        return redirect(f"/calendar/event/{event['id']}?notice=booked")
