"""A small document model rendered twice: to Markdown (images beside it) and to self-contained HTML.

The report is built as a list of blocks (headings, paragraphs, tables, figures, lists, code); each
renderer walks the same list, so ``report.md`` and ``report.html`` always say the same thing. Inline
markup in text is limited to ``**bold**``, ``*italic*`` and ```code```, which both formats understand.
The HTML inlines every PNG as a base64 data URI and carries its own style sheet: one file, no external
assets.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union


@dataclass(frozen=True)
class Heading:
    level: int  # 1 = title, 2 = section, 3 = subsection
    text: str


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    header: list[str]
    rows: list[list[str]]
    caption: str = ""  # shown above the table


@dataclass(frozen=True)
class Figure:
    filename: str  # PNG file name inside the output folder
    caption: str


@dataclass(frozen=True)
class BulletList:
    items: list[str]


@dataclass(frozen=True)
class Code:
    text: str


Block = Union[Heading, Paragraph, Table, Figure, BulletList, Code]


@dataclass
class Document:
    """An ordered list of blocks with a title."""

    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)

    def to_markdown(self) -> str:
        parts = [f"# {self.title}"]
        for block in self.blocks:
            parts.append(_block_markdown(block))
        return "\n\n".join(parts) + "\n"

    def to_html(self, image_folder: Path) -> str:
        """Render to one HTML page; figures are read from ``image_folder`` and inlined as data URIs."""
        body = [f"<h1>{_inline_html(self.title)}</h1>"]
        for block in self.blocks:
            body.append(_block_html(block, image_folder))
        return _HTML_PAGE.format(title=html.escape(self.title), style=_STYLE, body="\n".join(body))


# ----------------------------------------------------------------------------------------------------
# Markdown
# ----------------------------------------------------------------------------------------------------


def _markdown_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _block_markdown(block: Block) -> str:
    if isinstance(block, Heading):
        return "#" * block.level + " " + block.text
    if isinstance(block, Paragraph):
        return block.text
    if isinstance(block, Table):
        lines = [block.caption, ""] if block.caption else []
        lines.append("| " + " | ".join(_markdown_cell(h) for h in block.header) + " |")
        lines.append("|" + "|".join("---" for _ in block.header) + "|")
        lines.extend("| " + " | ".join(_markdown_cell(c) for c in row) + " |" for row in block.rows)
        return "\n".join(lines)
    if isinstance(block, Figure):
        alt = _markdown_cell(block.caption).replace("[", "(").replace("]", ")")
        return f"![{alt}]({block.filename})\n\n*{block.caption}*"
    if isinstance(block, BulletList):
        return "\n".join(f"- {item}" for item in block.items)
    if isinstance(block, Code):
        return "```\n" + block.text.rstrip("\n") + "\n```"
    raise TypeError(f"unknown block {block!r}")


# ----------------------------------------------------------------------------------------------------
# HTML
# ----------------------------------------------------------------------------------------------------

_INLINE_PATTERNS = (
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])"), r"<em>\1</em>"),
)


def _inline_html(text: str) -> str:
    escaped = html.escape(str(text), quote=False)
    for pattern, replacement in _INLINE_PATTERNS:
        escaped = pattern.sub(replacement, escaped)
    return escaped


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _png_data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _block_html(block: Block, image_folder: Path) -> str:
    if isinstance(block, Heading):
        level = min(max(block.level, 1), 6)
        return f'<h{level} id="{_slug(block.text)}">{_inline_html(block.text)}</h{level}>'
    if isinstance(block, Paragraph):
        return f"<p>{_inline_html(block.text)}</p>"
    if isinstance(block, Table):
        caption = f"<caption>{_inline_html(block.caption)}</caption>" if block.caption else ""
        head = "".join(f"<th>{_inline_html(h)}</th>" for h in block.header)
        rows = "\n".join("<tr>" + "".join(f"<td>{_inline_html(c)}</td>" for c in row) + "</tr>"
                         for row in block.rows)
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>\n{rows}\n</tbody></table>"
    if isinstance(block, Figure):
        uri = _png_data_uri(image_folder / block.filename)
        alt = html.escape(block.caption)
        return (f'<figure><img src="{uri}" alt="{alt}">'
                f"<figcaption>{_inline_html(block.caption)}</figcaption></figure>")
    if isinstance(block, BulletList):
        return "<ul>" + "".join(f"<li>{_inline_html(item)}</li>" for item in block.items) + "</ul>"
    if isinstance(block, Code):
        return f"<pre>{html.escape(block.text)}</pre>"
    raise TypeError(f"unknown block {block!r}")


_STYLE = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 1200px;
       margin: 2em auto; padding: 0 1em; color: #1b1f24; line-height: 1.45; }
h1, h2, h3 { line-height: 1.2; } h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .8em 0 1.4em; font-size: 0.88em; }
caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: .4em; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: right; }
th { background: #f3f5f7; } td:first-child, th:first-child { text-align: left; }
tbody tr:nth-child(even) { background: #fafbfc; }
figure { margin: 1em 0 1.6em; } img { max-width: 100%; border: 1px solid #eaecef; }
figcaption { font-size: 0.9em; color: #57606a; margin-top: .3em; }
code, pre { background: #f3f5f7; border-radius: 3px; font-size: 0.9em; }
code { padding: 0 3px; } pre { padding: .8em; overflow-x: auto; }
"""

_HTML_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
{body}
</body>
</html>
"""
