"""Quiet hours: how long a notice waits, in the player's own time zone."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from service.stores.notifications import Quiet

_HHMM = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


def check_quiet(tz: str, start: str, end: str) -> str | None:
    """Why these quiet hours are not valid; None when they are ("" and "" turn them off)."""
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        return f"tz: {tz!r} is not a time zone name (like Europe/Paris or UTC)"
    if (start == "") != (end == ""):
        return "start and end: both times, or both empty to turn quiet hours off"
    for name, v in (("start", start), ("end", end)):
        if v and not _HHMM.match(v):
            return f"{name}: a time as HH:MM (00:00 to 23:59), not {v!r}"
    return None


def held_for_ms(quiet: Quiet, now: float) -> int:
    """0 outside quiet hours; inside them, the milliseconds until they end. Hours that cross
    midnight (22:00 to 07:00) hold from the start to the next morning's end."""
    if not quiet.on:
        return 0
    try:
        zone = ZoneInfo(quiet.tz)
    except (ZoneInfoNotFoundError, ValueError):
        return 0
    local = datetime.fromtimestamp(now, zone)
    sh, sm = (int(x) for x in quiet.start.split(":"))
    eh, em = (int(x) for x in quiet.end.split(":"))
    start = local.replace(hour=sh, minute=sm, second=0, microsecond=0)
    end = local.replace(hour=eh, minute=em, second=0, microsecond=0)
    if start < end:
        inside = start <= local < end
    else:  # across midnight
        inside = local >= start or local < end
        if local >= start:
            end += timedelta(days=1)
    if not inside:
        return 0
    # Wall-clock arithmetic in the zone, then back to an instant (a DST change moves the end).
    until = end.replace(tzinfo=None)
    target = datetime(until.year, until.month, until.day, until.hour, until.minute, tzinfo=zone)
    return max(0, int((target.timestamp() - now) * 1000))
