"""E-mail on the network: an SMTP server reached as ``YOKAI_SMTP_URL`` says (smtp.py)."""
