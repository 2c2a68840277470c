"""Command shapes and the play-by-post notation (`explore in fog1 from marsh1 thicket1`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core import Command, InvalidCommand

P = "dragondale."
SHAPES: dict[str, dict[str, str]] = {
    "announce": {}, "skip": {}, "plan": {},
    "return": {"unit": "str"}, "discard": {"card": "str"}, "pay": {"tokens": "ints"},
    "reveal": {"token": "int"}, "explore": {"dir": "str", "target": "str", "via": "strs"},
    "take": {"units": "strs"}, "special": {"card": "str"}, "empower": {"card": "str", "effect": "str"},
    "poison": {"tree": "str"}, "choose": {"option": "str"}, "stance": {"unit": "str", "card": "str"},
}
COMMAND_TYPES = frozenset(P + k for k in SHAPES)


def _word(v: Any, field: str) -> str:
    if not isinstance(v, str) or not v or any(c.isspace() for c in v):
        raise InvalidCommand("bad_args", f"{field} must be a non-empty word")
    return v


def _int(v: Any, field: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise InvalidCommand("bad_args", f"{field} must be a non-negative integer")
    return v


def parse_command(type: str, args: Mapping[str, Any], seat: int) -> Command:
    if type not in COMMAND_TYPES:
        raise InvalidCommand("unknown_command", f"no command {type!r}")
    if not isinstance(args, Mapping):
        raise InvalidCommand("bad_args", "args must be an object")
    shape = SHAPES[type[len(P):]]
    if set(args) != set(shape):
        raise InvalidCommand("bad_args", f"{type} takes exactly {sorted(shape)}")
    out: dict[str, Any] = {}
    for k, kind in shape.items():
        v = args[k]
        if kind == "str":
            out[k] = _word(v, k)
        elif kind == "int":
            out[k] = _int(v, k)
        else:
            if not isinstance(v, list) or not v or len(set(map(str, v))) != len(v):
                raise InvalidCommand("bad_args", f"{k} must be a non-empty list without repeats")
            items = [_int(x, k) for x in v] if kind == "ints" else [_word(x, k) for x in v]
            out[k] = sorted(items)
    if type == P + "explore" and (out["dir"] not in ("in", "out") or len(out["via"]) > 2):
        raise InvalidCommand("bad_args", "explore needs dir in|out and one or two territories")
    return Command(type, out, seat)


def format_text(cmd: Command) -> str:
    verb = cmd.type[len(P):]
    a = cmd.args
    if verb == "explore":
        joint = "from" if a["dir"] == "in" else "to"
        return f"explore {a['dir']} {a['target']} {joint} " + " ".join(a["via"])
    if verb == "pay":
        return "pay " + " ".join(str(i) for i in a["tokens"])
    if verb == "take":
        return "take " + " ".join(a["units"])
    return " ".join([verb, *[str(a[k]) for k in SHAPES[verb]]])


def parse_text(text: str, seat: int) -> Command:
    words = text.split()
    if not words:
        raise InvalidCommand("bad_text", "empty command")
    verb, rest = words[0].lower(), words[1:]
    if verb not in SHAPES:
        raise InvalidCommand("bad_text", f"unknown command {verb!r}")
    args: dict[str, Any]
    try:
        if verb == "explore":
            if len(rest) < 4 or rest[0] not in ("in", "out") or rest[2] != ("from" if rest[0] == "in" else "to"):
                raise InvalidCommand("bad_text", "explore in T from A [B] | explore out T to A [B]")
            args = {"dir": rest[0], "target": rest[1], "via": rest[3:]}
        elif verb == "pay":
            args = {"tokens": [int(x) for x in rest]}
        elif verb == "take":
            args = {"units": rest}
        else:
            fields = list(SHAPES[verb])
            if len(rest) != len(fields):
                raise InvalidCommand("bad_text", f"{verb} takes {len(fields)} word(s): {fields}")
            args = {f: (int(v) if SHAPES[verb][f] == "int" else v) for f, v in zip(fields, rest, strict=True)}
    except ValueError as exc:
        if isinstance(exc, InvalidCommand):
            raise
        raise InvalidCommand("bad_text", f"cannot read {text!r}") from None
    return parse_command(P + verb, args, seat)
