"""The room booking flow's pages: pick a room, a day and a free slot on the availability
grid, fill in the booking form, confirm in a dialog. Whether the chosen length fits is
checked by the server when the user continues (a busy stretch sends them back to the grid
with the reason); the booking itself is checked again on confirm (capacity, attendees, the
slot still free): the rules are `store.check` and `store.book`."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from gui_gym.suites.localweb.apps.calendar import store
from gui_gym.suites.localweb.apps.calendar.data import BOOK_END, BOOK_START, TODAY, hhmm, minutes
from gui_gym.suites.localweb.apps.calendar.views import attendee_field, error_slot, layout
from gui_gym.suites.localweb.framework import esc


def rooms_page(state: dict[str, Any]) -> str:
    cards = "".join(
        f"<div class='card room-card' data-room='{r['id']}'><h2>{esc(r['name'])}</h2><div class='seats'>Seats {r['capacity']}</div>"
        f"<div class='muted'>Floor {r['floor']} &middot; {esc(r['equipment'])}</div>"
        f"<a class='button choose-room' data-room='{r['id']}' href='/calendar/book/{r['id']}' aria-label='Choose {esc(r['name'])}'>Choose</a></div>"
        for r in state["rooms"])
    content = f"<h1>Book a room</h1><p class='muted'>Rooms open {BOOK_START}\u2013{BOOK_END} on weekdays.</p><div class='grid rooms'>{cards}</div>"
    return layout(state, "Book a room", content, "book")


def grid_page(state: dict[str, Any], where: dict[str, Any], day: str, duration: int, start: str) -> str:
    moment = date.fromisoformat(day)
    base = f"/calendar/book/{where['id']}"
    problem = store.check(state, where["id"], day, start, duration) if start else None
    lengths = "".join(
        f"<a role='radio' class='seg' id='duration-{m}' aria-checked='{str(m == duration).lower()}' "
        f"href='{base}?date={day}&amp;duration={m}'>{label}</a>" for m, label in store.DURATIONS.items())
    if moment.weekday() >= 5 or day < TODAY:
        grid = f"<p class='muted closed'>{'Rooms cannot be booked on weekends.' if day >= TODAY else 'This day is in the past.'}</p>"
    else:
        grid = "<div class='slots' role='group' aria-label='Start times'>" + "".join(
            f"<button type='button' class='slot {'free' if free else 'busy'}' data-start='{s}' aria-pressed='{str(s == start).lower()}' "
            f"aria-label='{s} {'free' if free else 'busy'}'{'' if free else ' disabled'}>{s}</button>" for s, free in store.slots(state, where["id"], day)
        ) + "</div>"
    step = timedelta(days=1)
    error = f"<div class='error banner' role='alert' id='slot-error'>{esc(problem)}</div>" if problem else ""
    content = (
        f"<a href='/calendar/book' id='back'>&larr; All rooms</a><h1>Book {esc(where['name'])} "
        f"<span class='muted'>&middot; seats {where['capacity']}</span></h1>"
        f"<form class='card booking' id='slot-form' action='{base}/details' data-base='{base}'>"
        f"<div class='row'><div class='field'><label for='book-date'>Date</label><input id='book-date' name='date' class='datepicker' "
        f"value='{day}' data-min='{TODAY}' data-max='2026-12-31' autocomplete='off'></div>"
        f"<a class='button secondary' id='prev-day' href='{base}?date={moment - step}&amp;duration={duration}'>&lsaquo; Previous day</a>"
        f"<strong class='day-label'>{store.long_day(day)}</strong>"
        f"<a class='button secondary' id='next-day' href='{base}?date={moment + step}&amp;duration={duration}'>Next day &rsaquo;</a></div>"
        f"<div class='field'><span class='label'>Length</span><div role='radiogroup' aria-label='Length' class='segments'>{lengths}</div></div>"
        f"<input type='hidden' name='duration' value='{duration}'><input type='hidden' name='start' id='slot-start' value='{esc(start)}'>"
        f"<div class='field'><span class='label'>Start time</span>{grid}</div>{error}"
        f"<button type='submit' id='continue'{'' if start else ' disabled'}>Continue</button></form>")
    return layout(state, f"Book {where['name']}", content, "book")


def details_page(state: dict[str, Any], where: dict[str, Any], day: str, start: str, duration: int,
                 values: dict[str, Any] | None = None, errors: dict[str, str] | None = None) -> str:
    """The booking form; `values` and `errors` come back from a refused confirmation."""
    values, errors = values or {"title": "", "people": "", "attendees": [], "notes": ""}, errors or {}
    end = hhmm(minutes(start) + duration)
    hidden = "".join(f"<input type='hidden' name='{k}' id='b-{k}' value='{esc(v)}'>" for k, v in
                     (("room", where["id"]), ("date", day), ("start", start), ("duration", duration)))
    content = (
        f"<a href='/calendar/book/{where['id']}?date={day}&amp;duration={duration}' id='back'>&larr; Change time</a>"
        f"<h1>Book {esc(where['name'])}</h1><p class='when'>{store.long_day(day)} &middot; {start}&ndash;{end} &middot; "
        f"seats {where['capacity']}</p><form class='card booking' id='booking-form' method='post' "
        f"action='/calendar/book/{where['id']}/confirm'>{hidden}{error_slot('booking', errors.get('booking', ''))}"
        f"<div class='field'><label for='book-title'>Title</label><input id='book-title' name='title' value='{esc(values['title'])}' "
        f"autocomplete='off'>{error_slot('title', errors.get('title', ''))}</div>"
        f"<div class='field'><label for='people'>Number of people</label><input id='people' name='people' type='number' min='1' "
        f"placeholder='e.g. 4' value='{esc(values['people'])}'>{error_slot('people', errors.get('people', ''))}</div>"
        f"{attendee_field(state, 'book-attendees', list(values['attendees']), errors.get('attendees', ''))}"
        f"<div class='field'><label for='notes'>Notes</label><textarea id='notes' name='notes'>{esc(values['notes'])}</textarea></div>"
        "<button type='button' id='review' data-dialog-open='#confirm-dialog'>Review booking</button></form>"
        "<dialog id='confirm-dialog' aria-label='Confirm booking'><h2>Confirm booking</h2>"
        f"<p><strong>{esc(where['name'])}</strong>, {store.long_day(day)}, {start}&ndash;{end}</p><dl id='summary'></dl>"
        "<div class='actions'><button type='button' class='secondary' data-dialog-close>Back</button>"
        "<button type='submit' form='booking-form' id='confirm-booking'>Confirm booking</button></div></dialog>")
    return layout(state, f"Book {where['name']}", content, "book")
