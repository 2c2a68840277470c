"""What a use case refuses, in its own terms: a kind (what went wrong, for the caller to answer
as it speaks: the HTTP API maps each kind to a status in service/api/errors.py), a stable code
and a message for people. Rule violations stay `rules.core.InvalidCommand`."""

from __future__ import annotations

from typing import Literal

# bad_input: the request names something wrong (an unknown player, a seat out of range);
# forbidden: the caller may not do this; not_found: no such thing; conflict: the thing is not
# in a state that allows it (a table closed, a seat taken).
Kind = Literal["bad_input", "forbidden", "not_found", "conflict"]


class UseCaseError(Exception):
    """A request a use case refuses before anything is written."""

    def __init__(self, kind: Kind, code: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.code, self.message = kind, code, message
