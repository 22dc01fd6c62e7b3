"""/reference: the API's reference page (issue 48). It runs only the vendored RapiDoc,
from this origin, under its own Content-Security-Policy; the vendored file is the npm
package's, byte for byte, as its README records."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from tests.support.postgres import MakeApp

VENDOR = Path(__file__).resolve().parents[2] / "service" / "web" / "ui" / "vendor" / "rapidoc"


def test_the_reference_page_loads_the_vendored_renderer_and_the_contract(
    make_app: MakeApp,
) -> None:
    client = make_app().api().client
    page = client.get("/reference")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert scripts == [
        (' type="module" src="/ui/vendor/rapidoc/rapidoc-min.js"', ""),
        (' type="module" src="/ui/js/reference.js"', ""),  # names RapiDoc's unnamed selects
    ]
    assert 'spec-url="/v1/openapi.json"' in html
    csp = str(page.headers.get("Content-Security-Policy"))
    assert "script-src 'self';" in csp and "connect-src 'self';" in csp
    assert "font-src 'self';" in csp and "'unsafe-eval'" not in csp
    served = client.get("/ui/vendor/rapidoc/rapidoc-min.js")
    assert served.status_code == 200 and "javascript" in str(served.mimetype)
    assert served.get_data() == (VENDOR / "rapidoc-min.js").read_bytes()


def test_the_vendored_renderer_is_the_one_its_readme_names() -> None:
    recorded = re.search(
        r"sha256 of `rapidoc-min.js`: ([0-9a-f]{64})", (VENDOR / "README.md").read_text()
    )
    assert recorded is not None
    found = hashlib.sha256((VENDOR / "rapidoc-min.js").read_bytes()).hexdigest()
    assert found == recorded.group(1)
