"""Opening ethersim's HTML pages in headless Chromium for the report tests.

``scripts/install-test-tools`` (run by the README's test command) installs Chromium;
without it the browser tests skip and say so.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)


def open_in_chromium(page_file: Path, probes: dict[str, str] | None = None) -> dict[str, Any]:
    """Loads ``page_file`` in headless Chromium: its console errors and page errors, the
    dialogs anything opened (an injected ``alert``), every image (whether it loaded, its
    natural size), the body's text, every request for anything but the page itself, and
    the value of each JavaScript expression in ``probes``."""
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (scripts/install-test-tools installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is a test dependency")
    errors: list[str] = []
    dialogs: list[str] = []
    requests: list[str] = []
    page_uri = page_file.resolve().as_uri()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("request", lambda r: requests.append(r.url) if r.url != page_uri else None)
            page.goto(page_uri, wait_until="load")
            images = page.evaluate(
                "Array.from(document.images)"
                ".map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
            )
            text = page.inner_text("body")
            probed = {name: page.evaluate(js) for name, js in (probes or {}).items()}
        finally:
            browser.close()
    return {
        "errors": errors,
        "dialogs": dialogs,
        "requests": requests,
        "images": images,
        "text": text,
        **probed,
    }


def elements(page: str) -> list[tuple[str, dict[str, str | None]]]:
    """Every element of the HTML text ``page`` (tag, attributes), as a browser's parser
    sees them: what is inside a ``<script>`` or ``<style>`` is text, not elements."""
    from html.parser import HTMLParser

    found: list[tuple[str, dict[str, str | None]]] = []

    class Collector(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append((tag, dict(attrs)))

    Collector().feed(page)
    return found


def remote_references(page: str) -> list[str]:
    """The scripts, stylesheets, images and frames of ``page`` fetched from anywhere but
    the page itself (``src`` or ``href`` with a scheme or ``//``); links (``<a>``) to
    files beside the page are not fetched and not counted."""
    out = []
    for tag, attrs in elements(page):
        for name in ("src", "href"):
            value = attrs.get(name) or ""
            fetched = tag != "a" and (value.startswith("//") or ":" in value.split("/")[0])
            if fetched and not value.startswith("data:"):
                out.append(f"<{tag} {name}={value}>")
    return out
