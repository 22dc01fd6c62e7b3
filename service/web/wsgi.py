"""The WSGI entry point for gunicorn: ``service.web.wsgi:app``."""

from service.web.app import create_app

app = create_app()
