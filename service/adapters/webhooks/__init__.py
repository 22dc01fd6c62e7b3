"""Webhooks on the network, by job: which URLs may be posted to (url_policy.py), one POST
on a connection (exchange.py: HTTP/1.1 by the h11 library), the event loop that makes
every POST and keeps connections alive (sender.py), and the application's sender with
its metrics (delivery.py)."""
