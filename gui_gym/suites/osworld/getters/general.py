"""OSWorld's general getters: rules (including dates relative to today), command output,
the terminal, the accessibility tree, the desktop's screen, windows, wallpaper and folders.

``rule_relativeTime`` turns a relative date ("tomorrow", "next Monday", "5th next month",
...) into text with OSWorld's placeholders, as OSWorld computes it, in the rules' ``timezone``
or else the local time zone of this machine (OSWorld asks an IP geolocation service).
"""

from __future__ import annotations

import copy
import datetime
import logging
from typing import Any
from zoneinfo import ZoneInfo

from gui_gym.backends.desktop.client import ServerError
from gui_gym.suites.osworld.context import EpisodeContext

logger = logging.getLogger(__name__)

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MONTHS_FULL = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")
PLAIN_DAYS = {"tomorrow": 1}
"""Relative times that are a number of days from now; every other name is computed."""


def get_rule(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    return config["rules"]


def format_day(template: str, day: datetime.datetime) -> str:
    """OSWorld's placeholders: {DoW} {Month} {DayD} {Year} {Month0D} {month} {MonthFull}
    {Day0D} {MonthD}, each replaced once."""
    for key, value in (("{DoW}", DAYS[day.weekday()]), ("{Month}", MONTHS[day.month - 1]), ("{DayD}", str(day.day)),
                       ("{Year}", str(day.year)), ("{Month0D}", f"{day.month:02d}"),
                       ("{month}", MONTHS_FULL[day.month - 1].lower()), ("{MonthFull}", MONTHS_FULL[day.month - 1]),
                       ("{Day0D}", f"{day.day:02d}"), ("{MonthD}", str(day.month))):
        template = template.replace(key, value, 1)
    return template


def _next_month_day(now: datetime.datetime, day: int) -> datetime.datetime:
    year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
    return datetime.datetime(year, month, day, tzinfo=now.tzinfo)


def _first_monday(now: datetime.datetime, months_later: int, wrap_from: int) -> datetime.datetime:
    year = now.year + 1 if now.month >= wrap_from else now.year
    first = datetime.datetime(year, (now.month + months_later) % 12, 1, tzinfo=now.tzinfo)
    return first + datetime.timedelta(days=((6 - first.weekday()) + 1) % 7)


def relative_day(name: str, now: datetime.datetime, start: datetime.datetime | None = None,
                 start_name: str | None = None) -> datetime.datetime | None:
    """The day OSWorld means by `name` (a "to" day may depend on the "from" day)."""
    days = datetime.timedelta(days=1)
    weekday = now.weekday()
    if name in PLAIN_DAYS:
        return now + PLAIN_DAYS[name] * days
    simple = {
        "5th next month": lambda: _next_month_day(now, 5), "10th next month": lambda: _next_month_day(now, 10),
        "11th next month": lambda: _next_month_day(now, 11), "this month": lambda: now,
        "this Saturday": lambda: now + (5 - weekday) * days, "this Sunday": lambda: now + (6 - weekday) * days,
        "next Monday": lambda: now + ((6 - weekday) + 1) * days, "next Monday split": lambda: now + ((6 - weekday) + 1) * days,
        "first monday four months later": lambda: _first_monday(now, 4, 9),
        "first monday eight months later": lambda: _first_monday(now, 8, 5),
        "next week Friday": lambda: now + (7 - weekday + 4) * days, "next week Saturday": lambda: now + (7 - weekday + 5) * days,
    }
    if start is not None and name in ("next Friday", "next Friday split") and start_name in ("next Monday", "next Monday split"):
        return start + 4 * days
    if start is not None and name == "next Sunday" and start_name in ("next Friday", "next Saturday"):
        return start + (6 - start.weekday()) * days
    if start is not None and name == "next week Sunday" and start_name in ("next week Friday", "next week Saturday"):
        return start + (6 - start.weekday()) * days
    if name in ("next Friday", "next Friday split"):
        if start is None:
            return now + (4 - weekday if weekday < 4 else 7 if weekday == 4 else (7 - weekday) + 4) * days
        return now + (4 - weekday if weekday < 4 else (6 - weekday) + 5) * days
    if name == "next Saturday":
        return now + (5 - weekday if weekday < 5 else 7 if weekday == 5 else 6) * days
    if name == "next Sunday":
        return now + (6 - weekday if weekday < 6 else 7) * days
    if name == "next week Sunday":
        return now + (7 - weekday + 6) * days
    return simple[name]() if name in simple else None


def get_rule_relativeTime(ctx: EpisodeContext, config: dict[str, Any]) -> Any:  # noqa: N802
    """The rules with their ``expected`` dates filled in (see the module docstring):
    ``relativeTime: {"from": name}`` fills ``expected.time``; with ``to`` as well,
    ``expected.from`` and ``expected.to`` (or the day/month/year parts of the "split"
    names: ``puDay``... and ``doDay``...)."""
    rules = copy.deepcopy(config["rules"])
    relative = rules["relativeTime"]
    zone = rules.get("timezone")
    now = datetime.datetime.now(ZoneInfo(zone)) if zone else datetime.datetime.now().astimezone()
    expected = rules["expected"]
    if "to" not in relative:
        expected["time"] = format_day(expected["time"], relative_day(relative["from"], now))
        return rules
    start_name, end_name = relative["from"], relative["to"]
    start = relative_day(start_name, now, None, None)
    if start_name == "next Monday split":
        for key in ("puDay", "puMonth", "puYear"):
            expected[key] = format_day(expected[key], start)
    else:
        expected["from"] = format_day(expected["from"], start)
    end = relative_day(end_name, now, start, start_name)
    if end_name == "next Friday split":
        for key in ("doDay", "doMonth", "doYear"):
            expected[key] = format_day(expected[key], end)
    else:
        expected["to"] = format_day(expected["to"], end)
    return rules


def get_vm_command_line(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    result = ctx.client.execute(config["command"], shell=bool(config.get("shell", False)))
    return result.get("output")


def get_vm_command_error(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    result = ctx.client.execute(config["command"], shell=bool(config.get("shell", False)))
    return result.get("error")


def get_vm_terminal_output(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    try:
        return ctx.client.terminal_output()
    except ServerError as exc:  # OSWorld's getter gives None too
        logger.info("no terminal output from the VM: %s", exc)
        return None


def get_accessibility_tree(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    try:
        return ctx.client.accessibility_tree()
    except ServerError as exc:  # OSWorld's getter gives None too
        logger.info("no accessibility tree from the VM: %s", exc)
        return None


def get_list_directory(ctx: EpisodeContext, config: dict[str, Any]) -> dict | None:
    """The folder's tree (``{name, type, children}``), as OSWorld's controller returns it."""
    listing = ctx.list_directory(config["path"])
    return None if listing is None else listing.get("directory_tree")


def get_vm_screen_size(ctx: EpisodeContext, config: dict[str, Any]) -> dict[str, int]:
    width, height = ctx.client.screen_size()
    return {"width": width, "height": height}


def get_vm_window_size(ctx: EpisodeContext, config: dict[str, Any]) -> dict[str, int] | None:
    return ctx.client.window_size(config["app_class_name"])


def get_vm_wallpaper(ctx: EpisodeContext, config: dict[str, Any]) -> str:
    """The desktop's wallpaper image, saved as ``dest`` (an empty file when the desktop has
    none to give, as OSWorld writes)."""
    target = ctx.scratch / config["dest"]
    try:
        content = ctx.client.wallpaper()
    except ServerError as exc:
        logger.info("vm_wallpaper: %s", exc)
        content = None
    target.write_bytes(content or b"")
    return str(target)
