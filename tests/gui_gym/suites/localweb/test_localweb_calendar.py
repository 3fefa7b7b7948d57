"""LocalWeb's calendar and booking app: what is particular to it (the generic checks of every
template are in test_localweb_templates.py): the event form, the room conflict check, the
booking grid and the series edits behave as the page says."""

from __future__ import annotations

import re
from typing import Iterator
from urllib.request import Request, urlopen

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401  (registers the ids)
from gui_gym.actions import Action
from gui_gym.suites.localweb.apps.calendar import data, store
from gui_gym.suites.localweb.apps.calendar.base import pick_time
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.suite import LocalWebSuite



@pytest.fixture(scope="module")
def env():
    # A generous settle bound: on a loaded machine suggestions may take a while to arrive.
    env = gym.make("GUI/LocalWeb-v0", apps=["calendar"], settle_timeout_s=10, observe_screenshot=False)
    yield env
    env.close()


def act(env, actions: Iterator[Action]) -> None:
    for action in actions:
        *_, info = env.step(action)
        assert info["action_error"] is None


def test_world_is_a_pure_function_of_the_seed_without_double_bookings():
    state = data.initial_state(11)
    assert state == data.initial_state(11) and state["events"] != data.initial_state(12)["events"]
    booked = [e for e in state["events"] if e["room"]]
    for n, e in enumerate(booked):
        assert not any(o["room"] == e["room"] and data.overlaps(o, e["date"], e["start"], e["end"]) for o in booked[n + 1:])


def test_form_keeps_the_length_and_refuses_an_end_before_the_start(env):
    env.reset(seed=0, options={"task_id": "calendar.create-event", "instance_seed": 0})
    ui = OracleUI(env.unwrapped.backend)
    act(env, ui.click("#new-event"))
    act(env, ui.type_into("#title", "Check"))
    act(env, pick_time(ui, "start", "11:00"))
    assert ui.value("#end") == "12:00"  # the 09:00-10:00 default moved with its hour
    act(env, pick_time(ui, "end", "10:30"))
    act(env, ui.click("#save"))
    assert ui.text("#error-end") == "The end time must be after the start time"
    assert len(env.unwrapped.task.world["calendar"]["events"]) == len(data.initial_state(0)["events"])


def test_booking_grid_refuses_a_length_that_does_not_fit(env):
    env.reset(seed=1, options={"task_id": "calendar.book-room", "instance_seed": 1})
    params = env.unwrapped.task.template.params
    ui = OracleUI(env.unwrapped.backend)
    url = env.unwrapped.backend.url.split("/calendar/")[0]
    env.step(Action.goto(f"{url}/calendar/book/{params['room']}?date={params['blocked'][0]}&duration=120"))
    act(env, ui.click(".slot.free"))
    act(env, ui.click("#continue"))
    assert re.match(rf"{params['room_name']} is not free for 2 hours from \d\d:\d\d: it is booked", ui.text("#slot-error"))


def test_room_conflicts_are_refused_with_the_booking_named():
    state = data.initial_state(0)
    taken = next(e for e in state["events"] if e["room"] and e["series"] is None)
    form = {"title": "Clash", "date": taken["date"], "start": taken["start"], "end": taken["end"], "room": taken["room"]}
    with pytest.raises(store.CalendarError, match=rf"is already booked on .* \({re.escape(taken['title'])}\)") as refused:
        store.create(state, form)
    assert set(refused.value.errors) == {"room"}
    with pytest.raises(store.CalendarError) as bad:
        store.create(state, {"title": "", "date": "2026-13-01", "start": "09:00", "end": "09:00", "attendees": ["x@y.test"]})
    assert set(bad.value.errors) == {"title", "date", "end", "attendees"}


def test_series_edits_move_every_event_and_deletes_can_take_one():
    state = data.initial_state(0)
    series = store.series_events(state, 1)
    first = series[0]
    store.update(state, first, {**first, "date": first["date"], "start": "07:00", "end": "07:30", "scope": "series"})
    assert {(e["start"], e["end"]) for e in store.series_events(state, 1)} == {("07:00", "07:30")}
    store.delete(state, series[3], "this")
    assert len(store.series_events(state, 1)) == len(series) - 1
    created = store.create(state, {"title": "Weekly", "date": "2026-05-04", "start": "08:00", "end": "08:30",
                                   "repeat": "weekly", "count": "3"})
    assert [e["date"] for e in store.series_events(state, created["series"])] == ["2026-05-04", "2026-05-11", "2026-05-18"]


def test_booking_checks_capacity_and_people():
    state = data.initial_state(0)
    form = {"room": "aurora", "date": "2026-03-03", "start": "08:00", "duration": "30", "title": "Sync",
            "attendees": [p["email"] for p in state["people"][:2]]}
    free = store.check(state, "aurora", "2026-03-03", "08:00", 30) is None
    assert free, "the first half hour of a Tuesday morning is free in this world"
    with pytest.raises(store.CalendarError, match="Aurora seats 4: choose a bigger room or fewer people"):
        store.book(state, {**form, "people": "6"})
    with pytest.raises(store.CalendarError, match="must count you and your 2 attendee"):
        store.book(state, {**form, "people": "2"})
    assert store.book(state, {**form, "people": "3"})["room"] == "aurora"
    assert store.check(state, "aurora", "2026-03-07", "09:00", 60) == "Rooms cannot be booked on weekends."


def test_month_and_week_pages_over_http():
    suite = LocalWebSuite(["calendar"])
    suite.server.start()
    try:
        suite.install_world(suite.new_world(0))
        events = suite.app_server.states["calendar"]["events"]

        def get(path: str) -> str:  # the server answers only requests carrying its token
            return urlopen(Request(f"{suite.url}{path}", headers=suite.server.auth_headers), timeout=10).read().decode()
        april = get("/calendar/month?m=2026-04")
        assert "April 2026" in april and "data-month='2026-04'" in april
        week = get("/calendar/week?d=2026-03-04")
        shown = {int(i) for i in re.findall(r"class='week-ev' data-id='(\d+)'", week)}
        assert shown == {e["id"] for e in events if "2026-03-02" <= e["date"] <= "2026-03-08"}
        fallback = get("/calendar/month?m=1999-01")
        assert "March 2026" in fallback
    finally:
        suite.close()
