"""What a reply to one of boardlog's mails says in its own words: its lines, without the mail it
quotes or its signature, however the writer's mail program laid it out.

Mail programs quote in three ways: each line behind `>` (either above or below the reply), the
whole mail pasted unmarked below a header ("On Tue, boardlog wrote:", "-----Original
Message-----", "From: ..."), or, for an HTML-only reply, inside a `<blockquote>`. A quote
pasted unmarked and answered below (bottom-posted) ends where boardlog's mail ends: every mail a
reply may answer closes with a line `END_MARKS` names, so the writer's own text after it is read.
"""

from __future__ import annotations

import re
from email.message import EmailMessage
from html.parser import HTMLParser

# A line that says a quote begins: "On Tue 3 Dec, boardlog <...> wrote:", Outlook's separator or
# its header block.
_QUOTE_START = re.compile(r"^(on\s.+\swrote:?|-{2,}\s*original message\s*-{2,}|-{2,}\s*forwarded message.*|"
                          r"from:\s.+|_{8,})$", re.I)
# The last line of every boardlog mail a reply may answer: an unmarked quote ends with it.
END_MARKS = ("Stop these mails:", "-- end of boardlog's mail --")
# A signature starts here ("-- ", or "--" once mail programs trim the space).
_SIGNATURE = re.compile(r"^--\s?$")
_BLOCKS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "pre", "table", "blockquote"})


class _Text(HTMLParser):
    """An HTML body as lines of text, without what it quotes in `<blockquote>`s."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.quoted = 0
        self.skipped = 0  # inside <style> or <script>: never text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "blockquote":
            self.quoted += 1
        elif tag in ("style", "script", "head"):
            self.skipped += 1
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "blockquote":
            self.quoted = max(0, self.quoted - 1)
        elif tag in ("style", "script", "head"):
            self.skipped = max(0, self.skipped - 1)
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.quoted and not self.skipped:
            self.parts.append(data)


def html_text(markup: str) -> str:
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return "".join(parser.parts)


def body_text(msg: EmailMessage) -> str | None:
    """The reply's text: its plain part, or its HTML part as text when it has no plain one."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return None
    content = str(part.get_content())
    return html_text(content) if part.get_content_subtype() == "html" else content


def own_lines(text: str) -> list[str]:
    """The lines the writer wrote: not quoted (`>` or unmarked under a quote's header, up to the
    quoted mail's last line), above their signature; each stripped, blank ones left out."""
    out: list[str] = []
    quoting = header = False  # in an unmarked quote; after a quote's header, not yet told which
    for raw in text.splitlines():
        line = raw.strip().replace("\u00a0", " ")
        if header and line:
            header = False
            quoting = not line.startswith(">")  # a header over `>` lines: the quote is marked
        if line.startswith(">"):
            continue
        if quoting:
            if line.startswith(END_MARKS):
                quoting = False
            continue
        if _QUOTE_START.match(line):
            header = True
            continue
        if _SIGNATURE.match(line):
            if out:
                break  # the writer's own signature: nothing of theirs follows
            quoting = True  # a quoted mail's own signature, unmarked: its end mark follows
            continue
        if line:
            out.append(line)
    return out


def reply_lines(msg: EmailMessage) -> list[str]:
    text = body_text(msg)
    return [] if text is None else own_lines(text)
