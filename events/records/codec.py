"""Canonical JSON: orjson with sorted keys, UTF-8, no whitespace; the bytes the hash covers."""

from __future__ import annotations

from typing import Any

import orjson

_OPTS = orjson.OPT_SORT_KEYS


def canonical(obj: Any) -> bytes:
    return orjson.dumps(obj, option=_OPTS)


def loads(raw: bytes | str) -> Any:
    return orjson.loads(raw)
