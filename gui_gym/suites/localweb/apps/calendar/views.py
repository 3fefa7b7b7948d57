"""The calendar's pages: month and week views, the events list, an event, and the event form
(date picker, time lists, room select, attendee autocomplete, repeat). Server-rendered on the
shared look; changes are native form posts (the server redirects, or shows the form again
with its errors); `static/calendar.js` adds the time lists and the attendee chips."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from gui_gym.suites.localweb.apps.calendar import store
from gui_gym.suites.localweb.apps.calendar.data import DAY_END, DAY_START, REPEATS, RSVPS, TODAY, minutes
from gui_gym.suites.localweb.framework import SHARED_STATIC, assets, esc, notice, page

STATIC = Path(__file__).parent / "static"
HEAD = assets(STATIC / "calendar.css", SHARED_STATIC / "widgets.js", STATIC / "calendar.js")
CHIPS_PER_DAY = 3
EVENTS_PAGE_SIZE = 12
HOUR_PX = 40


def layout(state: dict[str, Any], title: str, content: str, active: str = "") -> str:
    links = "".join(
        f"<a href='{href}' id='nav-{key}'{' aria-current=page class=current' if key == active else ''}>{name}</a>"
        for key, href, name in (("month", "/calendar/", "Month"), ("week", "/calendar/week", "Week"),
                                ("events", "/calendar/events", "Events"), ("book", "/calendar/book", "Book a room")))
    nav = (f"<header class='topbar'><a class='brand' href='/calendar/'>&#9638; Calendar</a><nav class='cal-nav'>{links}</nav>"
           "<span class='spacer'></span><a class='button' id='new-event' href='/calendar/new'>+ New event</a>"
           f"<span>{esc(state['me']['name'])}</span></header>")
    return page(f"{title} - Calendar", content, app="calendar", app_assets=HEAD, nav=nav)




def chip(event: dict[str, Any], css: str = "ev") -> str:
    return (f"<a class='{css}' data-id='{event['id']}' href='/calendar/event/{event['id']}' "
            f"title='{event['start']}-{event['end']} {esc(event['title'])}'><span class='t'>{event['start']}</span> "
            f"{esc(event['title'])}</a>")


def month_page(state: dict[str, Any], month: str, message: str = "") -> str:
    first = date.fromisoformat(f"{month}-01")
    grid_start = first - timedelta(days=first.weekday())
    following = (first + timedelta(days=32)).replace(day=1)
    previous = (first - timedelta(days=1)).replace(day=1)
    rows, day = [], grid_start
    while day < following or day.weekday() != 0:
        cells = []
        for _ in range(7):
            iso = day.isoformat()
            events = store.day_events(state, iso)
            css = " ".join(c for c in ("day", "today" if iso == TODAY else "", "other" if day.month != first.month else "") if c)
            more = (f"<a class='more' href='/calendar/week?d={iso}'>+{len(events) - CHIPS_PER_DAY} more</a>"
                    if len(events) > CHIPS_PER_DAY else "")
            cells.append(
                f"<td class='{css}' data-date='{iso}'><div class='day-head'><a class='day-number' href='/calendar/week?d={iso}' "
                f"aria-label='Week of {day:%B} {day.day}'>{day.day}</a><a class='add-event' href='/calendar/new?date={iso}' "
                f"aria-label='New event on {day:%B} {day.day}'>+</a></div>"
                f"{''.join(chip(e) for e in events[:CHIPS_PER_DAY])}{more}</td>")
            day += timedelta(days=1)
        rows.append(f"<tr>{''.join(cells)}</tr>")
    heads = "".join(f"<th>{d}</th>" for d in ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"))
    content = (
        f"{notice(message)}<div class='cal-head'><a class='button secondary' id='prev-month' href='/calendar/month?m={previous:%Y-%m}' "
        f"aria-label='Previous month'>&lsaquo;</a><a class='button secondary' id='next-month' href='/calendar/month?m={following:%Y-%m}' "
        f"aria-label='Next month'>&rsaquo;</a><h1>{first:%B %Y}</h1><a class='button secondary' href='/calendar/' id='today'>Today</a></div>"
        f"<table class='month' data-month='{month}'><thead><tr>{heads}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
    return layout(state, f"{first:%B %Y}", content, "month")


def week_page(state: dict[str, Any], day: str) -> str:
    monday = date.fromisoformat(day) - timedelta(days=date.fromisoformat(day).weekday())
    top = minutes(DAY_START)
    hours = range(top // 60, minutes(DAY_END) // 60)
    labels = "".join(f"<div class='hour' style='height:{HOUR_PX}px'>{h:02d}:00</div>" for h in hours)
    columns, heads = [], []
    for n in range(7):
        moment = monday + timedelta(days=n)
        iso = moment.isoformat()
        heads.append(f"<th class='{'today' if iso == TODAY else ''}'>{moment:%a} {moment.day} {moment:%b}</th>")
        blocks = []
        for e in store.day_events(state, iso):
            y = (minutes(e["start"]) - top) * HOUR_PX // 60
            h = max((minutes(e["end"]) - minutes(e["start"])) * HOUR_PX // 60 - 2, 14)
            where = f" &middot; {esc(store.room(state, e['room'])['name'])}" if e["room"] else ""  # type: ignore[index]
            blocks.append(f"<a class='week-ev' data-id='{e['id']}' href='/calendar/event/{e['id']}' style='top:{y}px;height:{h}px'>"
                          f"<strong>{esc(e['title'])}</strong> {e['start']}&ndash;{e['end']}{where}</a>")
        columns.append(f"<td data-date='{iso}'><div class='col' style='height:{len(hours) * HOUR_PX}px'>{''.join(blocks)}</div></td>")
    content = (
        f"<div class='cal-head'><a class='button secondary' id='prev-week' href='/calendar/week?d={monday - timedelta(days=7)}' "
        f"aria-label='Previous week'>&lsaquo;</a><a class='button secondary' id='next-week' "
        f"href='/calendar/week?d={monday + timedelta(days=7)}' aria-label='Next week'>&rsaquo;</a>"
        f"<h1>Week of {monday:%B} {monday.day}, {monday.year}</h1></div><div class='week-scroll'><table class='week' "
        f"data-week='{monday}'><thead><tr><th></th>{''.join(heads)}</tr></thead><tbody><tr><td class='hours'>{labels}</td>"
        f"{''.join(columns)}</tr></tbody></table></div>")
    return layout(state, "Week", content, "week")


def events_page(state: dict[str, Any], query: str, page_number: int) -> str:
    words = query.lower().split()
    chosen = sorted((e for e in state["events"] if (e["date"] >= TODAY or words) and all(w in e["title"].lower() for w in words)),
                    key=lambda e: (e["date"], e["start"], e["id"]))
    pages = max(1, -(-len(chosen) // EVENTS_PAGE_SIZE))
    current = min(max(page_number, 1), pages)
    rows = "".join(
        f"<tr data-id='{e['id']}'><td>{date.fromisoformat(e['date']):%a, %b} {date.fromisoformat(e['date']).day}</td>"
        f"<td>{e['start']}&ndash;{e['end']}</td><td><a href='/calendar/event/{e['id']}'>{esc(e['title'])}</a></td>"
        f"<td>{esc(store.room(state, e['room'])['name']) if e['room'] else ''}</td>"  # type: ignore[index]
        f"<td>{esc(store.person(state, e['organizer'])['name'])}</td></tr>"
        for e in chosen[(current - 1) * EVENTS_PAGE_SIZE:current * EVENTS_PAGE_SIZE])
    links = "".join(f"<span class='current'>{n}</span>" if n == current else
                    f"<a href='/calendar/events?{esc(urlencode({'q': query, 'page': n}))}' aria-label='Page {n}'>{n}</a>"
                    for n in range(1, pages + 1))
    content = (
        f"<div class='cal-head'><h1>{'Search results' if words else 'Upcoming events'}</h1>"
        f"<form action='/calendar/events' role='search' class='event-search'><input type='search' name='q' id='event-search' "
        f"value='{esc(query)}' aria-label='Search events' placeholder='Search events'><button class='secondary'>Search</button></form></div>"
        "<table class='events'><thead><tr><th>Date</th><th>Time</th><th>Title</th><th>Room</th><th>Organizer</th></tr></thead>"
        f"<tbody>{rows or '<tr><td colspan=5>No events.</td></tr>'}</tbody></table>"
        f"<nav class='pagination' aria-label='Pages'>{links}</nav>")
    return layout(state, "Events", content, "events")


def event_page(state: dict[str, Any], e: dict[str, Any], message: str = "") -> str:
    mine = e["organizer"] == state["me"]["email"]
    where = store.room(state, e["room"])
    room_text = f"{esc(where['name'])} (seats {where['capacity']}, floor {where['floor']})" if where else "No room"
    guests = "".join(f"<li>{esc(store.person(state, a)['name'])}</li>" for a in e["attendees"]) or "<li class='muted'>Nobody yet</li>"
    series = store.series_events(state, e["series"])
    repeat = f"<div><span class='muted'>Repeats:</span> {REPEATS[e['repeat']]} &middot; {len(series)} events in this series</div>" if e["series"] else ""
    people = f"<div><span class='muted'>People:</span> {e['people']}</div>" if e["people"] else ""
    base = f"/calendar/event/{e['id']}"
    if mine:
        actions = (f"<a class='button' id='edit' href='{base}/edit'>Edit</a>"
                   "<button type='button' class='danger' id='delete' data-dialog-open='#delete-dialog'>Delete</button>")
    else:
        actions = f"<form method='post' action='{base}/rsvp' class='rsvp-form'><span class='muted'>Going?</span>" + "".join(
            f"<button type='submit' class='secondary rsvp' id='rsvp-{value}' name='value' value='{value}' "
            f"aria-pressed='{str(e['rsvp'] == value).lower()}'>{label}</button>"
            for value, label in (("accepted", "Yes"), ("tentative", "Maybe"), ("declined", "No"))) + "</form>"
    scope = ("<fieldset class='scope'><legend>Delete</legend><label><input type='radio' name='scope' value='this' id='delete-this' checked> "
             "Only this event</label><label><input type='radio' name='scope' value='series' id='delete-series'> "
             "All events in the series</label></fieldset>") if e["series"] else ""
    dialog = (f"<dialog id='delete-dialog' aria-label='Delete event'><form method='post' action='{base}/delete'>"
              f"<h2>Delete \u201c{esc(e['title'])}\u201d?</h2>{scope}<div class='actions'>"
              "<button type='button' class='secondary' data-dialog-close>Cancel</button>"
              "<button type='submit' class='danger' id='confirm-delete'>Delete</button></div></form></dialog>")
    content = (
        f"{notice(message)}<a href='/calendar/month?m={e['date'][:7]}' id='back'>&larr; Back to {date.fromisoformat(e['date']):%B}</a>"
        f"<article class='card event' data-id='{e['id']}'><h1>{esc(e['title'])}</h1>"
        f"<div class='when'>{store.long_day(e['date'])} &middot; {e['start']}&ndash;{e['end']}</div>"
        f"<div><span class='muted'>Room:</span> {room_text}</div>{repeat}{people}"
        f"<div><span class='muted'>Organizer:</span> {esc(store.person(state, e['organizer'])['name'])}</div>"
        + ("" if mine else f"<div><span class='muted'>Your answer:</span> <span id='rsvp-state'>{RSVPS[e['rsvp']]}</span></div>")
        + f"<h3>Attendees</h3><ul class='attendees'>{guests}</ul><p class='description'>{esc(e['description'])}</p>"
        f"<div class='event-actions'>{actions}</div></article>{dialog}")
    return layout(state, e["title"], content)


def time_field(field: str, label: str, value: str, error: str) -> str:
    options = "".join(f"<li role='option' data-value='{t}' aria-selected='{str(t == value).lower()}'>{t}</li>"
                      for t in store.time_options())
    return (f"<div class='field'><label for='{field}'>{label}</label><div class='timepick'>"
            f"<input id='{field}' name='{field}' class='time-input' value='{esc(value)}' autocomplete='off' role='combobox' "
            f"aria-expanded='false' aria-controls='{field}-options'><ul role='listbox' id='{field}-options' "
            f"class='time-options' aria-label='{label}' hidden>{options}</ul></div>{error_slot(field, error)}</div>")


def error_slot(field: str, error: str) -> str:
    return f"<div class='error' id='error-{field}' role='alert'>{esc(error)}</div>"


def attendee_field(state: dict[str, Any], field: str, emails: list[str], error: str = "") -> str:
    """Chips of the chosen people, the autocomplete to add more, and the hidden form value
    (their addresses, comma-separated) that `calendar.js` fills on submit."""
    chips = "".join(f"<span class='chip' data-value='{esc(a)}'>{esc(store.person(state, a)['name'])}<button type='button' "
                    f"class='chip-remove' aria-label='Remove {esc(store.person(state, a)['name'])}'>&times;</button></span>" for a in emails)
    return (f"<div class='field attendees-field' id='{field}-field'><label for='{field}-input'>Attendees</label>"
            f"<input type='hidden' name='attendees' value='{esc(','.join(emails))}'>"
            f"<div class='chips' id='{field}-chips'>{chips}</div><div class='autocomplete'><input id='{field}-input' "
            "data-suggest='/calendar/api/people?q=' autocomplete='off' placeholder='Add people by name'></div>"
            f"{error_slot('attendees', error)}</div>")


def form_page(state: dict[str, Any], e: dict[str, Any] | None, day: str, values: dict[str, Any] | None = None,
              errors: dict[str, str] | None = None) -> str:
    """The new/edit event form; `values` and `errors` come back from a refused save."""
    errors = errors or {}
    values = values or e or {"title": "", "date": day, "start": "09:00", "end": "10:00", "room": "", "attendees": [],
                             "description": "", "repeat": "none", "count": "4", "scope": "this"}
    rooms = "<option value=''>No room</option>" + "".join(
        f"<option value='{r['id']}'{' selected' if r['id'] == values['room'] else ''}>{esc(r['name'])} &middot; {r['capacity']} seats</option>"
        for r in state["rooms"])
    if e is None:
        repeats = "".join(f"<option value='{k}'{' selected' if k == values.get('repeat') else ''}>{v}</option>"
                          for k, v in REPEATS.items())
        extra = (f"<div class='row'><div class='field'><label for='repeat'>Repeat</label><select id='repeat' name='repeat'>{repeats}</select>"
                 f"{error_slot('repeat', errors.get('repeat', ''))}</div><div class='field' id='count-field'"
                 f"{' hidden' if values.get('repeat', 'none') == 'none' else ''}><label for='count'>Occurrences</label>"
                 f"<input id='count' name='count' type='number' min='2' max='12' value='{esc(values.get('count', '4'))}'>"
                 f"{error_slot('count', errors.get('count', ''))}</div></div>")
    elif e["series"]:
        checked = values.get("scope") == "series"
        extra = ("<fieldset class='scope'><legend>Apply changes to</legend><label><input type='radio' name='scope' value='this' "
                 f"id='scope-this'{'' if checked else ' checked'}> Only this event</label><label><input type='radio' name='scope' "
                 f"value='series' id='scope-series'{' checked' if checked else ''}> All events in the series</label></fieldset>"
                 f"{error_slot('scope', errors.get('scope', ''))}")
    else:
        extra = ""
    action = f"/calendar/event/{e['id']}/edit" if e else "/calendar/new"
    cancel = f"/calendar/event/{e['id']}" if e else f"/calendar/month?m={day[:7]}"
    content = (
        f"<h1>{'Edit event' if e else 'New event'}</h1><form id='event-form' class='card event-form' method='post' action='{action}'>"
        f"<div class='field'><label for='title'>Title</label><input id='title' name='title' value='{esc(values['title'])}' "
        f"autocomplete='off'>{error_slot('title', errors.get('title', ''))}</div><div class='row'>"
        f"<div class='field'><label for='date'>Date</label><input id='date' name='date' class='datepicker' value='{esc(values['date'])}' "
        f"data-min='2026-01-01' data-max='2026-12-31' autocomplete='off'>{error_slot('date', errors.get('date', ''))}</div>"
        f"{time_field('start', 'Start', values['start'], errors.get('start', ''))}{time_field('end', 'End', values['end'], errors.get('end', ''))}"
        f"<div class='field'><label for='room'>Room</label><select id='room' name='room'>{rooms}</select>"
        f"{error_slot('room', errors.get('room', ''))}</div></div>"
        f"{attendee_field(state, 'attendees', list(values['attendees']), errors.get('attendees', ''))}{extra}"
        f"<div class='field'><label for='description'>Description</label><textarea id='description' name='description'>"
        f"{esc(values['description'])}</textarea></div>"
        f"<div class='form-actions'><button type='submit' id='save'>Save</button><a class='button secondary' href='{cancel}'>Cancel</a></div></form>")
    return layout(state, "Edit event" if e else "New event", content)
