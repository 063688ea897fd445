"""Pages from templates: the Jinja2 environment (``ethersim/templates/``, every value
escaped unless marked safe), and Markdown rendered with raw HTML off."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

__all__ = ["markdown", "render"]


@functools.cache
def _environment() -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("ethersim", "templates"),
        # Every value a template prints is escaped; only what this package marks safe
        # (plotly.js, figure JSON, Markdown rendered without raw HTML) is not.
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(template: str, **values: Any) -> str:
    """The page ``template`` (a file in ``ethersim/templates/``) filled with ``values``."""
    from importlib.metadata import version

    values.setdefault("ethersim_version", version("ethersim"))
    return _environment().get_template(template).render(**values)


def markdown(text: str) -> Any:
    """``text`` (a study's ``summary.md``) as HTML, marked safe: CommonMark with tables,
    raw HTML in it shown as text (never run: a summary quoting ``<script>`` or an
    ``<img onerror=...>`` cannot act in the page), links only to safe schemes."""
    import markupsafe
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    return markupsafe.Markup(md.render(text))
