"""Identity on the network: the verifier of OpenID Connect ID tokens (oidc.py)."""
