#!/usr/bin/env python3
"""Make the web client's home-screen icons (service/web/ui/icons/*.png) from its SVG.

    .venv/bin/python scripts/web_icons.py

The PNGs are committed; run this again only when icon.svg changes. It draws the SVG in
headless Chromium (Debian's, as the browser tests use it, driven by Playwright from the
dev extra): no image library is needed. `maskable` icons fill the whole square with the
background, their figure inside the safe zone (the middle 80%) that a phone's mask keeps;
the others are a rounded square on a transparent background.
"""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parents[1] / "service" / "web" / "ui" / "icons"
# (file, size in pixels, maskable)
MADE = [("icon-192.png", 192, False), ("icon-512.png", 512, False), ("maskable-512.png", 512, True)]


def _svg(maskable: bool) -> str:
    svg = (ICONS / "icon.svg").read_text()
    if maskable:
        # The whole square is background; the figure, scaled to 80%, stays in the safe zone.
        svg = svg.replace('rx="96"', 'rx="0"').replace(
            'id="figure"',
            'id="figure" transform="translate(256 256) scale(0.8) translate(-256 -256)"',
        )
    return svg


def main() -> None:
    chromium = os.environ.get("YOKAI_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for name, size, maskable in MADE:
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(
                "<html><body style='margin:0;background:transparent'>"
                f"<div style='width:{size}px;height:{size}px'>{_svg(maskable)}</div></body></html>"
            )
            page.locator("svg").screenshot(path=str(ICONS / name), omit_background=True)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
