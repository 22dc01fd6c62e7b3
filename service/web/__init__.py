"""The web layer: one folder per resource (``games/``, ``players/``, ``live/``,
``records/``, ``webhooks/``, ``ops/``), each with its routes (a flask-smorest blueprint)
and its schemas; ``fields.py`` (what schemas share), ``request.py`` (what a view reads
of its request), ``conditional.py`` (ETags), ``render.py`` (responses), ``errors.py``
(every exception as a problem document), ``app.py`` (the app factory)."""
