"""The docs hold together: the settings page is what its generator prints, every relative link in
the README and docs/ reaches a file (and a heading, when it names one), and the README is a short
front door that starts with the two commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.runtime.settings import markdown_page

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE = re.compile(r"`[^`\n]*`")


def test_the_settings_page_is_what_the_generator_prints() -> None:
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert page == markdown_page(), (
        "docs/settings.md differs from the settings' definition: "
        "run `.venv/bin/python -m service.runtime.settings > docs/settings.md`")


def anchors(path: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub makes them."""
    found: set[str] = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        if line.startswith("#"):
            slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            found.add(slug)
    return found


def links(path: Path) -> list[str]:
    """The page's link targets, outside code blocks and code spans."""
    text = CODE.sub("", FENCE.sub("", path.read_text(encoding="utf-8")))
    return LINK.findall(text)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_its_heading(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...: not ours to check
            continue
        file, _, anchor = target.partition("#")
        linked = (page.parent / file).resolve() if file else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: at most 200 (move the rest to docs/)"
    before_any_section = lines[: next(i for i, line in enumerate(lines) if line.startswith("#"))]
    commands = [line.strip() for line in before_any_section if line.strip() and not line.startswith("```")]
    assert commands[:2] == ["make run", "make test"], "README.md must start with `make run` and `make test`"
