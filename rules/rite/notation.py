"""Command shapes and the play-by-post notation (`summon knight c4`, `move c4 d5 d6`, `pass`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rules.core import Command, InvalidCommand

_LABEL = re.compile(r"^[a-k](10|11|[1-9])$")
_TRI = re.compile(r"^[a-k](?:10|11|[1-9])\+[a-k](?:10|11|[1-9])\+[a-k](?:10|11|[1-9])$")  # Ultimatosaur's tiles

# verb -> {arg: kind}; kinds: tile, str, int, bool, path, strs, opt_tile, tri, tris
SHAPES: dict[str, dict[str, str]] = {
    "place": {"tile": "str", "at": "tile", "rot": "int"},
    "summon": {"unit": "str", "at": "tile"},
    "move": {"path": "path"},
    "defeat": {"target": "tile", "from": "opt_tile"},
    "rock": {"at": "tile"},
    "fly": {"from": "tile", "to": "tile"},
    "fireball": {"from": "tile", "target": "tile"},
    "pay": {"x": "int", "y": "int", "flames": "bool"},
    "breathe": {"to": "tile", "flames": "bool"},
    "presence": {},
    "umove": {"path": "tris"},
    "charge": {"to": "tri"},
    "roar": {"from": "tile", "target": "tile"},
    "power": {"name": "str", "args": "strs"},
    "choose": {"option": "str"},
    "thought": {"from": "tile", "target": "tile"},
    "steal": {"from": "tile", "target": "tile"},
    "join": {"target": "tile"},
    "act": {"faction": "str"},
    "end": {},
    "pass": {},
}
DEFAULTS: dict[str, Any] = {"rot": 0, "flames": False, "from": None, "args": []}

# verb -> its written forms, shown when a command has the wrong number or kind of words.
USAGE: dict[str, str] = {
    "place": "place <tile> <where> [r<rotation>], e.g. place earth d4 r2",
    "summon": "summon <unit> <tile>, e.g. summon knight c4",
    "move": "move <from> <to> (the cheapest route) or move <from> <step> ... <to>, e.g. move c4 e6",
    "defeat": "defeat <target> from <attacker>, or defeat <target> for your own unit, e.g. defeat d6 from e6",
    "rock": "rock <tile>, e.g. rock d6",
    "fly": "fly <angel> <to>, e.g. fly c4 e6",
    "fireball": "fireball <sorcerer> <target>, e.g. fireball c4 d6",
    "pay": "pay x<X> y<Y> [flames], e.g. pay x2 y3",
    "breathe": "breathe <tile> [flames], e.g. breathe d6",
    "presence": "presence",
    "umove": "umove <tiles> <tiles> ..., e.g. umove c4+d4+c5 d4+c5+d5",
    "charge": "charge <tiles>, e.g. charge d4+c5+d5",
    "roar": "roar <rex> <enemy>, e.g. roar d4 e4",
    "power": "power <name> [arguments], e.g. power rally c4",
    "choose": "choose <option>, e.g. choose done (the prompt lists its options)",
    "thought": "thought <thought> <enemy>, e.g. thought d4 e4",
    "steal": "steal <doppelganger> <enemy>, e.g. steal d4 e4",
    "join": "join <tile>, e.g. join g4",
    "act": "act <faction>, e.g. act goblins",
    "end": "end",
    "pass": "pass",
}
COMMAND_TYPES = frozenset("rite." + v for v in SHAPES)


def _bad(msg: str) -> InvalidCommand:
    return InvalidCommand("bad_args", msg)


def _check(kind: str, name: str, v: Any) -> Any:
    if kind == "tile":
        if not isinstance(v, str) or not _LABEL.match(v):
            given = f", not {v[:12]!r}" if isinstance(v, str) and v else ""  # the sender's own text
            raise _bad(f"{name} must be a tile like 'c4'{given}")
        return v
    if kind == "opt_tile":
        return None if v is None else _check("tile", name, v)
    if kind == "str":
        if not isinstance(v, str) or not v or len(v) > 40 or " " in v:
            raise _bad(f"{name} must be a short word")
        return v
    if kind == "int":
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 99:
            raise _bad(f"{name} must be a small whole number")
        return v
    if kind == "bool":
        if not isinstance(v, bool):
            raise _bad(f"{name} must be true or false")
        return v
    if kind == "path":
        if not isinstance(v, list) or not 2 <= len(v) <= 40:
            raise _bad(f"{name} must list at least two tiles")
        return [_check("tile", name, x) for x in v]
    if kind == "tri":
        if not isinstance(v, str) or not _TRI.match(v):
            raise _bad(f"{name} must be three tiles like 'c4+d4+c5'")
        return v
    if kind == "tris":
        if not isinstance(v, list) or not 2 <= len(v) <= 40:
            raise _bad(f"{name} must list at least two positions")
        return [_check("tri", name, x) for x in v]
    if kind == "strs":
        if not isinstance(v, list) or len(v) > 4:
            raise _bad(f"{name} must be a short list of words")
        return [_check("str", name, x) for x in v]
    raise AssertionError(kind)


def parse_command(type: str, args: Mapping[str, Any], seat: int) -> Command:
    """Check a JSON command's shape and fill optional fields; raises InvalidCommand."""
    if not isinstance(type, str) or not type.startswith("rite.") or type[5:] not in SHAPES:
        raise InvalidCommand("unknown_command", f"no Rite command {type!r}")
    if not isinstance(args, Mapping):
        raise _bad("args must be an object")
    shape = SHAPES[type[5:]]
    extra = set(args) - set(shape)
    if extra:
        raise _bad(f"unexpected field(s) {sorted(extra)}")
    out: dict[str, Any] = {}
    for name, kind in shape.items():
        if name in args:
            out[name] = _check(kind, name, args[name])
        elif name in DEFAULTS:
            d = DEFAULTS[name]
            out[name] = list(d) if isinstance(d, list) else d
        else:
            raise _bad(f"missing field {name!r}")
    return Command(type, out, seat)


def parse_text(text: str, seat: int) -> Command:
    """Read the notation; raises InvalidCommand with a hint on anything it does not understand."""
    w = text.strip().lower().split()
    if not w:
        raise InvalidCommand("bad_notation", "the command is empty: write a move in notation, as the list of commands gives it")
    verb, rest = w[0], w[1:]
    a: dict[str, Any]
    try:
        if verb in ("end", "pass", "presence") and not rest:
            a = {}
        elif verb == "summon" and len(rest) == 2:
            a = {"unit": rest[0], "at": rest[1]}
        elif verb == "move" and len(rest) >= 2:
            a = {"path": rest}
        elif verb == "defeat" and len(rest) == 1:
            a = {"target": rest[0]}
        elif verb == "defeat" and len(rest) == 3 and rest[1] == "from":
            a = {"target": rest[0], "from": rest[2]}
        elif verb == "umove" and len(rest) >= 2:
            a = {"path": rest}
        elif verb == "charge" and len(rest) == 1:
            a = {"to": rest[0]}
        elif verb == "roar" and len(rest) == 2:
            a = {"from": rest[0], "target": rest[1]}
        elif verb == "rock" and len(rest) == 1:
            a = {"at": rest[0]}
        elif verb == "fly" and len(rest) == 2:
            a = {"from": rest[0], "to": rest[1]}
        elif verb == "fireball" and len(rest) == 2:
            a = {"from": rest[0], "target": rest[1]}
        elif verb == "pay" and len(rest) in (2, 3) and rest[0][:1] == "x" and rest[1][:1] == "y":
            a = {"x": int(rest[0][1:]), "y": int(rest[1][1:])}
            if len(rest) == 3:
                if rest[2] != "flames":
                    raise ValueError
                a["flames"] = True
        elif verb == "breathe" and len(rest) in (1, 2):
            a = {"to": rest[0]}
            if len(rest) == 2:
                if rest[1] != "flames":
                    raise ValueError
                a["flames"] = True
        elif verb == "power" and rest:
            a = {"name": rest[0], "args": rest[1:]}
        elif verb in ("thought", "steal") and len(rest) == 2:
            a = {"from": rest[0], "target": rest[1]}
        elif verb == "join" and len(rest) == 1:
            a = {"target": rest[0]}
        elif verb == "act" and len(rest) == 1:
            a = {"faction": rest[0]}
        elif verb == "choose" and len(rest) == 1:
            a = {"option": rest[0]}
        elif verb == "place" and len(rest) in (2, 3):
            a = {"tile": rest[0], "at": rest[1]}
            if len(rest) == 3:
                if rest[2][:1] != "r":
                    raise ValueError
                a["rot"] = int(rest[2][1:])
        else:
            raise ValueError
    except ValueError:
        if verb in USAGE:
            raise InvalidCommand("bad_notation", f"cannot read {text!r}: write {USAGE[verb]}") from None
        raise InvalidCommand(
            "bad_notation", f"cannot read {text!r}: no command {verb!r} (one of {', '.join(sorted(USAGE))})"
        ) from None
    return parse_command("rite." + verb, a, seat)


def format_text(c: Command) -> str:
    v = c.type[5:]
    a = c.args
    if v in ("end", "pass", "presence"):
        return v
    if v == "summon":
        return f"summon {a['unit']} {a['at']}"
    if v == "move":
        return "move " + " ".join(a["path"])
    if v == "defeat":
        return f"defeat {a['target']}" + (f" from {a['from']}" if a.get("from") else "")
    if v == "rock":
        return f"rock {a['at']}"
    if v == "umove":
        return "umove " + " ".join(a["path"])
    if v == "charge":
        return f"charge {a['to']}"
    if v == "roar":
        return f"roar {a['from']} {a['target']}"
    if v == "fly":
        return f"fly {a['from']} {a['to']}"
    if v == "fireball":
        return f"fireball {a['from']} {a['target']}"
    if v == "pay":
        return f"pay x{a['x']} y{a['y']}" + (" flames" if a.get("flames") else "")
    if v == "breathe":
        return f"breathe {a['to']}" + (" flames" if a.get("flames") else "")
    if v == "power":
        return " ".join(["power", a["name"], *a.get("args", [])])
    if v == "choose":
        return f"choose {a['option']}"
    if v in ("thought", "steal"):
        return f"{v} {a['from']} {a['target']}"
    if v == "join":
        return f"join {a['target']}"
    if v == "act":
        return f"act {a['faction']}"
    if v == "place":
        return f"place {a['tile']} {a['at']}" + (f" r{a['rot']}" if a.get("rot") else "")
    raise InvalidCommand("unknown_command", f"no notation for {c.type}")
