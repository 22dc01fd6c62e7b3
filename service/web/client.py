"""The reference web client: static files served at ``/`` (HTML, CSS, plain ES modules
and one message catalogue per language, in ``service/web/ui/``), and the two documents it
links to (the fairness check and the rules), served as text.

It is not part of the API, so it is a plain Flask blueprint, absent from the OpenAPI
document. Everything it shows it reads from the API with ``fetch``, as any front end
would; it needs no build step, no CDN and nothing downloaded at run time.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from flask import Blueprint, Response, abort, send_file, send_from_directory

from service.application.identity import signin
from service.web.request import deps, services

blp = Blueprint("client", __name__)

UI = Path(__file__).resolve().parent / "ui"

# The page runs only our own scripts and styles, talks only to this origin, and may not
# be framed, submit forms elsewhere or change its base URL. No inline script or style:
# the markup has none, and nothing the client renders can add one. Its service worker
# and its manifest (what installs it on a home screen) are its own origin's too.
CLIENT_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; worker-src 'self'; manifest-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)


def _csp() -> str:
    """CLIENT_CSP, but for the token endpoints of the providers the client signs in
    with: the page exchanges the code it is given there (PKCE), so it may connect to
    them and to nothing else."""
    found = signin.providers(deps(), services().web_clients)
    origins = sorted({_origin(p.token_endpoint) for p in found})
    return CLIENT_CSP.replace("connect-src 'self'", " ".join(["connect-src 'self'", *origins]))


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


# The documents the client links to (docs/ in the source tree, service.docs when
# installed): the fairness check's reader should not need a copy of the repository.
DOCS = frozenset({"fairness.md", "rules.md"})


def _doc(name: str) -> Path:
    try:
        # A namespace package's files() is no single folder: join the name to it.
        return Path(str(resources.files("service.docs") / name))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "docs" / name


def _revalidated(response: Response) -> Response:
    """Kept by the browser, but asked for again (ETag / Last-Modified give 304s): a new
    release of the service reaches every open client at its next load."""
    response.headers["Cache-Control"] = "no-cache"
    return response


@blp.route("/", methods=["GET"])
def index() -> Response:
    response = send_from_directory(UI, "index.html", mimetype="text/html")
    response.headers["Content-Security-Policy"] = _csp()
    return _revalidated(response)


# The static pages of the client (the rules, ui/rules/<lang>.html): its stylesheet, and
# nothing else: no script at all.
PAGE_CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)


# The API reference (/reference): the vendored RapiDoc (ui/vendor/rapidoc, a module of
# our own origin) renders /v1/openapi.json. It sets styles inline as it renders (its
# components' own), so this page alone allows inline styles; never an inline script.
REFERENCE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)


@blp.route("/reference", methods=["GET"])
def reference() -> Response:
    """The API's reference, readable: every endpoint, field and problem of the OpenAPI
    document (docs/api.md is its prose)."""
    response = send_from_directory(UI, "reference.html", mimetype="text/html")
    response.headers["Content-Security-Policy"] = REFERENCE_CSP
    return _revalidated(response)


# The service worker's own policy (a worker's CSP is its script's response's): its
# modules, the message catalogues it reads and the icon it shows, all of this origin.
WORKER_CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self'"


@blp.route("/sw.js", methods=["GET"])
def service_worker() -> Response:
    """The service worker (ui/sw.js: pushes shown, a click opening the game), served at
    the root so that its scope is the whole client; revalidated at every check, so a
    new release replaces it."""
    response = send_from_directory(UI, "sw.js", mimetype="text/javascript")
    response.headers["Content-Security-Policy"] = WORKER_CSP
    return _revalidated(response)


@blp.route("/manifest.webmanifest", methods=["GET"])
def manifest() -> Response:
    """The web app manifest (ui/manifest.webmanifest): the client installs on a phone's
    home screen with its name, colours and icons (ui/icons/, made by
    scripts/web_icons.py)."""
    response = send_from_directory(UI, "manifest.webmanifest", mimetype="application/manifest+json")
    return _revalidated(response)


@blp.route("/ui/<path:filename>", methods=["GET"])
def ui_file(filename: str) -> Response:
    """Scripts, styles, catalogues and the rules pages (send_from_directory refuses paths
    out of UI)."""
    response = send_from_directory(UI, filename)
    if filename.endswith(".html"):
        response.headers["Content-Security-Policy"] = PAGE_CSP
    return _revalidated(response)


@blp.route("/docs/<name>", methods=["GET"])
def doc(name: str) -> Response:
    if name not in DOCS:
        abort(404)
    response = send_file(_doc(name), mimetype="text/plain")
    return _revalidated(response)
