"""Web Push (RFC 8030) as the worker sends it: the server's VAPID key and its signature
(RFC 8292, vapid.py), and a push message encrypted for one subscription (RFC 8291,
message.py). The POST itself is the webhook sender's (service/adapters/webhooks/sender.py)."""
