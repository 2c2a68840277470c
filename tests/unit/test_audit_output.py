"""What `boardlog audit` prints from a record that is anyone's file: its text as it is."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from events.records.export import export_lines
from service.runtime.auditing import run_audit
from tests.support.records import play_offline

# An escape sequence that clears the screen and prints a green "VERIFIED", then Rich markup.
EVIL = "p01-\x1b[2J\x1b[32mVERIFIED\x1b[0m\u202e[green]ok[/]"


def test_a_records_game_id_and_file_name_print_as_written(tmp_path: Path) -> None:
    """A record's game id (anyone can write a record) and a file's name reached the terminal
    raw: an escape sequence recoloured the auditor's screen, and '[green]' in a name was Rich
    markup, not text. Each control character prints as its code; brackets print as brackets."""
    envs = play_offline("race", ["ann", "bob"], {"target": 6}, seed=3, gid=EVIL)
    one = tmp_path / "one.jsonl"
    one.write_bytes(b"".join(export_lines(envs)))
    two = tmp_path / "t[red]wo.jsonl"
    two.write_bytes(one.read_bytes())
    for files in ([one], [one, two]):
        out = io.StringIO()
        run_audit(files, {}, [], False, Console(file=out, width=400, color_system=None))
        text = out.getvalue()
        assert "\x1b" not in text and "\u202e" not in text, repr(text)
        assert "\\u001b[2J" in text and "\\u202e[green]ok[/]" in text, text
    assert "t[red]wo.jsonl" in text
