"""The report's document model: Markdown and self-contained HTML from the same blocks."""

from __future__ import annotations

import base64

from flashio.report.document import BulletList, Code, Document, Figure, Heading, Paragraph, Table

PNG_1x1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def test_markdown_table_escapes_pipes():
    doc = Document("t", [Table(["a", "b"], [["x|y", "2"]])])
    assert "| x\\|y | 2 |" in doc.to_markdown()


def test_markdown_figure_links_the_png_beside_it():
    doc = Document("t", [Figure("plot.png", "a plot")])
    assert "![a plot](plot.png)" in doc.to_markdown()


def test_html_escapes_text():
    doc = Document("t", [Paragraph("a < b & c")])
    assert "<p>a &lt; b &amp; c</p>" in doc.to_html(None)


def test_html_renders_inline_markup():
    doc = Document("t", [Paragraph("**bold**, *italic* and `code`")])
    assert "<strong>bold</strong>, <em>italic</em> and <code>code</code>" in doc.to_html(None)


def test_html_inlines_png_as_data_uri(tmp_path):
    (tmp_path / "plot.png").write_bytes(PNG_1x1)
    page = Document("t", [Figure("plot.png", "a plot")]).to_html(tmp_path)
    assert f'src="data:image/png;base64,{base64.b64encode(PNG_1x1).decode()}"' in page


def test_html_heading_gets_an_anchor():
    assert '<h2 id="why-bandwidth-sram">Why: bandwidth, SRAM</h2>' in \
        Document("t", [Heading(2, "Why: bandwidth, SRAM")]).to_html(None)


def test_html_table_has_caption_header_and_cells():
    page = Document("t", [Table(["GPU", "×"], [["T4", "4.6"]], "speedups")]).to_html(None)
    assert "<caption>speedups</caption><thead><tr><th>GPU</th><th>×</th></tr></thead>" in page
    assert "<tr><td>T4</td><td>4.6</td></tr>" in page


def test_list_and_code_blocks_render_in_both_formats():
    doc = Document("t", [BulletList(["one", "two"]), Code("x = 1")])
    assert "- one\n- two" in doc.to_markdown() and "```\nx = 1\n```" in doc.to_markdown()
    assert "<ul><li>one</li><li>two</li></ul>" in doc.to_html(None) and "<pre>x = 1</pre>" in doc.to_html(None)
