"""The web client as an installable app (issue 45): its manifest, icons and service
worker as the service serves them. The browser's side (the manifest parsed, the worker
active with scope "/", "Notify me") is tests/browser/test_notifications_ui.py's."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

from service.web.client import CLIENT_CSP, WORKER_CSP
from tests.support.api import Api

UI = Path(__file__).resolve().parents[2] / "service" / "web" / "ui"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_is_served_with_its_type_and_names_the_app(api: Api) -> None:
    r = api.get("/manifest.webmanifest")
    assert r.status_code == 200
    assert r.mimetype == "application/manifest+json"
    assert r.headers["Cache-Control"] == "no-cache"
    manifest = json.loads(r.get_data())
    assert manifest["name"] == "Yokai Septet"
    assert manifest["short_name"]
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "/",
        "/",
        "standalone",
    )
    # The colours are the stylesheet's: its accent and its background.
    css = (UI / "app.css").read_text()
    assert f"--accent: {manifest['theme_color']};" in css
    assert f"--bg: {manifest['background_color']};" in css
    page = api.get("/").get_data(as_text=True)
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert f'<meta name="theme-color" content="{manifest["theme_color"]}">' in page


def test_its_icons_are_served_at_their_sizes_one_of_them_maskable(api: Api) -> None:
    icons = api.get("/manifest.webmanifest").get_json(force=True)["icons"]
    sizes = set()
    for icon in icons:
        r = api.get(icon["src"])
        assert r.status_code == 200, icon
        assert r.mimetype == icon["type"] == "image/png"
        width, height = _png_size(r.get_data())
        assert icon["sizes"] == f"{width}x{height}"
        sizes.add((width, icon["purpose"]))
    assert {(192, "any"), (512, "any"), (512, "maskable")} <= sizes


def test_the_service_worker_is_served_from_the_root_revalidated_with_its_own_csp(
    api: Api,
) -> None:
    r = api.get("/sw.js")
    assert r.status_code == 200
    assert r.mimetype == "text/javascript"
    assert r.headers["Cache-Control"] == "no-cache"
    assert r.headers["Content-Security-Policy"] == WORKER_CSP
    assert "unsafe" not in WORKER_CSP
    assert "Service-Worker-Allowed" not in r.headers  # its path gives it the scope "/"
    again = api.get("/sw.js", If_None_Match=r.headers["ETag"])
    assert again.status_code == 304
    # Every module it imports is served (as the page's are).
    for name in re.findall(r'from "\./([\w./]+)"', r.get_data(as_text=True)):
        assert api.get(f"/{name}").mimetype == "text/javascript", name
    # It asks the API nothing, so holds no token.
    source = (UI / "sw.js").read_text()
    assert "/v1/" not in source
    assert "Authorization" not in source


def test_the_page_may_register_its_worker_and_read_its_manifest() -> None:
    for directive in ("worker-src 'self'", "manifest-src 'self'"):
        assert directive in CLIENT_CSP
