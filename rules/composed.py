"""What every game's `Game` object composes the same way: its notation module, its describe
module, its textboard module and its default answer.

A game's class names its `notation` and `describe` modules and its preferred default answers in
its class line (`class RiteGame(ComposedGame, notation=notation, words=describe,
text=textboard, default_answers=DEFAULT_ANSWERS)`) and writes only its rules: set-up, decide, evolve, the legal
commands and answers, views and redaction, and the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol

from rules.core import Command, Event, Game, Told, preferred_answer


class Notation(Protocol):
    """A game's notation module (rules/<game>/notation.py): a command's JSON and play-by-post forms."""

    def parse_command(self, type: str, args: Mapping[str, Any], seat: int, /) -> Command: ...

    def parse_text(self, text: str, seat: int, /) -> Command: ...

    def format_text(self, command: Command, /) -> str: ...


class Words(Protocol):
    """A game's describe module (rules/<game>/describe.py): the words functions of rules.core.Game."""

    def describe_prompt(self, state: Any, viewer: int | None, names: Sequence[str], /) -> str: ...

    def describe_command(
        self, state: Any, command: Command, viewer: int | None, names: Sequence[str], /
    ) -> str: ...

    def describe_event(
        self, state: Any, event: Event, viewer: int | None, names: Sequence[str], /
    ) -> Told: ...

    def touched(self, state: Any, command: Command | None, events: Sequence[Event], /) -> list[str]: ...


class Text(Protocol):
    """A game's textboard module (rules/<game>/textboard.py): the position as plain text and its
    headline, from a viewer's view (`Game.view`) and the seats' names."""

    def text_board(self, view: Mapping[str, Any], names: Sequence[str], /) -> str: ...

    def headline(self, view: Mapping[str, Any], names: Sequence[str], /) -> str: ...


class ComposedGame(Game):
    """A rules.core.Game whose notation, words and default answer come from its class line.

    Subclassing the protocol (not only matching it) makes mypy refuse to build a game that leaves
    one of its rules unwritten: an inherited protocol body would answer None."""

    _notation: ClassVar[Notation]
    _words: ClassVar[Words]
    _default_answers: ClassVar[tuple[str, ...]]
    _text: ClassVar[Text]

    def __init_subclass__(
        cls, *, notation: Notation | None = None, words: Words | None = None,
        default_answers: tuple[str, ...] | None = None, text: Text | None = None, **kwargs: Any
    ) -> None:
        super().__init_subclass__(**kwargs)
        # A subclass of a composed game (an older rules version of it) keeps the parts it names none of.
        if notation is not None:
            cls._notation = notation
        if words is not None:
            cls._words = words
        if default_answers is not None:
            cls._default_answers = default_answers
        if text is not None:
            cls._text = text
        if not all(hasattr(cls, a) for a in ("_notation", "_words", "_default_answers", "_text")):
            raise TypeError(f"{cls.__name__} names no notation, words, text or default answers of its own or inherited")

    def parse_command(self, type: str, args: Mapping[str, Any], seat: int) -> Command:
        return self._notation.parse_command(type, args, seat)

    def parse_text(self, text: str, seat: int) -> Command:
        return self._notation.parse_text(text, seat)

    def format_text(self, command: Command) -> str:
        return self._notation.format_text(command)

    def default_answer(self, state: Any, seat: int) -> Command:
        """The first legal command of the first type in the game's `default_answers`, else the
        first legal command (each game's RULINGS.md "Resigned seats" gives its order)."""
        return preferred_answer(self.legal_commands(state, seat), self._default_answers)

    # Words (issue #14): rules/<game>/describe.py
    def describe_prompt(self, state: Any, viewer: int | None, names: Sequence[str]) -> str:
        return self._words.describe_prompt(state, viewer, names)

    def describe_command(self, state: Any, command: Command, viewer: int | None, names: Sequence[str]) -> str:
        return self._words.describe_command(state, command, viewer, names)

    def describe_event(self, state: Any, event: Event, viewer: int | None, names: Sequence[str]) -> Told:
        return self._words.describe_event(state, event, viewer, names)

    def touched(self, state: Any, command: Command | None, events: Sequence[Event]) -> list[str]:
        return self._words.touched(state, command, events)

    # The position as text (issue #40): rules/<game>/textboard.py
    def text_board(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        return self._text.text_board(view, names)

    def headline(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        return self._text.headline(view, names)
