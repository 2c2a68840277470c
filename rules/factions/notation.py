"""Command JSON shapes and the play-by-post notation (`step d4`, `use LB c5`), which round-trip."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rules.core import Command, InvalidCommand

ADVANTAGES = ("terrain", "resource", "tile_first", "resources", "recruit_last")


def _str(args: Mapping[str, Any], key: str) -> str:
    v = args.get(key)
    if not isinstance(v, str) or not v or len(v) > 12:
        raise InvalidCommand("bad_args", f"{key!r} must be a short string")
    return v


def _int(args: Mapping[str, Any], key: str, allowed: range | tuple[int, ...]) -> int:
    v = args.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v not in allowed:
        raise InvalidCommand("bad_args", f"{key!r} must be an integer in {allowed}")
    return v


def _unit(args: Mapping[str, Any], key: str) -> str:
    v = _str(args, key).upper()
    if not v.isalnum():
        raise InvalidCommand("bad_args", f"{key!r} must be a unit code like 'RS'")
    return v


def _space(args: Mapping[str, Any], key: str) -> str:
    v = _str(args, key).lower()
    if not (v[0] in "abcdefgh" and v[1:].isdigit() and 1 <= int(v[1:]) <= 8):
        raise InvalidCommand("bad_args", f"{key!r} must be a space like 'c4'")
    return v


SHAPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # verb: (required keys, optional keys)
    "choose": (("advantage",), ()),
    "tile": (("tile", "spot", "rot"), ()),
    "center": (("kind", "space"), ()),
    "aside": (("unit",), ()),
    "recruit": (("unit",), ()),
    "done": ((), ()),
    "activate": (("unit",), ()),
    "command": (("captain", "unit"), ()),
    "step": (("to",), ("aside",)),
    "fly": ((), ()),
    "land": ((), ()),
    "attack": (("target",), ()),
    "shoot": (("target",), ()),
    "use": (("power", "target"), ()),
    "end": ((), ()),
}
COMMAND_TYPES = frozenset(f"factions.{v}" for v in SHAPES)


def _choice(args: Mapping[str, Any], key: str, allowed: tuple[str, ...], message: str) -> str:
    v = _str(args, key).lower()  # as a unit code or a space is read in any case
    if v not in allowed:
        raise InvalidCommand("bad_args", f"{message}, not {v!r}")
    return v


def _step(args: Mapping[str, Any]) -> dict[str, Any]:
    out = {"to": _space(args, "to")}
    if args.get("aside") is not None:
        out["aside"] = _space(args, "aside")
    return out


# Each verb's check and normal form of its JSON args (their keys are already checked).
_NORM: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "choose": lambda a: {"advantage": _choice(a, "advantage", ADVANTAGES,
                                              "advantage must be one of " + ", ".join(ADVANTAGES))},
    "tile": lambda a: {"tile": _int(a, "tile", range(1, 6)), "spot": _int(a, "spot", range(1, 17)),
                       "rot": _int(a, "rot", (0, 180))},
    "center": lambda a: {"kind": _choice(a, "kind", ("gold", "mana"), "kind must be 'gold' or 'mana'"),
                         "space": _space(a, "space")},
    "aside": lambda a: {"unit": _unit(a, "unit")},
    "recruit": lambda a: {"unit": _unit(a, "unit")},
    "done": lambda a: {},
    "activate": lambda a: {"unit": _unit(a, "unit")},
    "command": lambda a: {"captain": _unit(a, "captain"), "unit": _unit(a, "unit")},
    "step": _step,
    "fly": lambda a: {},
    "land": lambda a: {},
    "attack": lambda a: {"target": _space(a, "target")},
    "shoot": lambda a: {"target": _space(a, "target")},
    "use": lambda a: {"power": _unit(a, "power"), "target": _space(a, "target")},
    "end": lambda a: {},
}
_VERBS = {f"factions.{v}": v for v in SHAPES}
_KEYS = {v: frozenset(req + opt) for v, (req, opt) in SHAPES.items()}


def parse_command(type: str, args: Mapping[str, Any], seat: int) -> Command:
    verb = _VERBS.get(type) if isinstance(type, str) else None
    if verb is None:
        raise InvalidCommand("unknown_command", f"no command type {type!r} in factions")
    if not isinstance(args, Mapping):
        raise InvalidCommand("bad_args", "args must be an object")
    extra = args.keys() - _KEYS[verb]
    if extra:
        raise InvalidCommand("bad_args", f"unexpected fields {sorted(extra)}")
    for k in SHAPES[verb][0]:
        if k not in args:
            raise InvalidCommand("bad_args", f"missing field {k!r}")
    return Command(type, _NORM[verb](args), seat)


def format_text(c: Command) -> str:
    verb = c.type.split(".", 1)[1]
    a = c.args
    parts: list[str] = [verb]
    if verb == "tile":
        parts += [str(a["tile"]), str(a["spot"]), str(a["rot"])]
    elif verb == "center":
        parts += [a["kind"], a["space"]]
    elif verb == "command":
        parts += [a["captain"], a["unit"]]
    elif verb == "step":
        parts.append(a["to"])
        if "aside" in a:
            parts += ["aside", a["aside"]]
    elif verb == "use":
        parts += [a["power"], a["target"]]
    else:
        for k in SHAPES[verb][0]:
            parts.append(str(a[k]))
    return " ".join(parts)


def _num(tok: str) -> int:
    if not tok.isdigit():
        raise InvalidCommand("bad_text", f"expected a number, got {tok!r}")
    return int(tok)


_TEXT: dict[str, Callable[[list[str]], dict[str, Any]]] = {
    "choose": lambda t: {"advantage": t[0]},
    "tile": lambda t: {"tile": _num(t[0]), "spot": _num(t[1]), "rot": _num(t[2])},
    "center": lambda t: {"kind": t[0], "space": t[1]},
    "aside": lambda t: {"unit": t[0]},
    "recruit": lambda t: {"unit": t[0]},
    "activate": lambda t: {"unit": t[0]},
    "command": lambda t: {"captain": t[0], "unit": t[1]},
    "attack": lambda t: {"target": t[0]},
    "shoot": lambda t: {"target": t[0]},
    "use": lambda t: {"power": t[0], "target": t[1]},
}
_ARITY = {"choose": 1, "tile": 3, "center": 2, "aside": 1, "recruit": 1, "activate": 1, "command": 2,
          "attack": 1, "shoot": 1, "use": 2, "done": 0, "fly": 0, "land": 0, "end": 0}
# Each verb's written form, shown when a command has the wrong number of words.
FORMS = {
    "choose": "choose <advantage>, e.g. 'choose terrain'", "tile": "tile <tile 1-5> <spot> <0|180>, e.g. 'tile 3 5 180'",
    "center": "center <gold|mana> <space>, e.g. 'center gold c3'", "aside": "aside <unit>, e.g. 'aside RS'",
    "recruit": "recruit <unit>, e.g. 'recruit RS'", "activate": "activate <unit>, e.g. 'activate EG'",
    "command": "command <captain> <unit>, e.g. 'command EG MI'", "attack": "attack <space>, e.g. 'attack d5'",
    "shoot": "shoot <space>, e.g. 'shoot d5'", "use": "use <spell or ability> <space>, e.g. 'use LB c5'",
    "done": "done", "fly": "fly", "land": "land", "end": "end",
}


# Every verb the notation reads, `step` (parsed on its own above `_ARITY`) among them.
VERBS = tuple(sorted(SHAPES))


def parse_text(text: str, seat: int) -> Command:
    toks = text.split()
    if not toks:
        raise InvalidCommand("bad_text", "the command is empty: write a move in notation, as the list of commands gives it")
    verb, rest = toks[0].lower(), toks[1:]
    if verb == "step":
        if len(rest) == 1:
            return parse_command("factions.step", {"to": rest[0]}, seat)
        if len(rest) == 3 and rest[1].lower() == "aside":
            return parse_command("factions.step", {"to": rest[0], "aside": rest[2]}, seat)
        raise InvalidCommand("bad_text", "write 'step d4' or 'step d4 aside e4'")
    if verb not in _ARITY:
        raise InvalidCommand("unknown_command", f"unknown verb {verb!r}; the verbs are {', '.join(VERBS)}")
    if len(rest) != _ARITY[verb]:
        n = _ARITY[verb]
        takes = "no words" if n == 0 else "1 word" if n == 1 else f"{n} words"
        form = FORMS[verb] if n else f"'{FORMS[verb]}' alone"
        raise InvalidCommand("bad_text", f"{verb} takes {takes} after it: write {form}")
    args = _TEXT[verb](rest) if verb in _TEXT else {}
    return parse_command(f"factions.{verb}", args, seat)
