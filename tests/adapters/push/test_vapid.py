"""The server's VAPID key (service/adapters/push/vapid.py, RFC 8292): read from PEM or
from the private scalar in base64url alike, refused with its reason when it is not a
P-256 private key, made once and kept in the data folder when not set; and the
Authorization header a push service verifies (with PyJWT here, not the project's code)."""

from __future__ import annotations

import base64
import logging
import stat
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from service.adapters.push.vapid import EXPIRES, VapidKey, b64url, unb64url, vapid_key

NOW = 1_700_000_000
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def _scalar(key: VapidKey) -> bytes:
    private = serialization.load_pem_private_key(key.to_setting().encode(), password=None)
    assert isinstance(private, ec.EllipticCurvePrivateKey)
    return private.private_numbers().private_value.to_bytes(32, "big")


def _pem(private: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey, **how: object) -> str:
    return private.private_bytes(
        serialization.Encoding.PEM,
        how.get("format", serialization.PrivateFormat.PKCS8),  # type: ignore[arg-type]
        how.get("encryption", serialization.NoEncryption()),  # type: ignore[arg-type]
    ).decode()


def test_a_key_reads_the_same_from_pem_and_from_its_scalar_in_base64url() -> None:
    key = VapidKey.generate()
    scalar = _scalar(key)
    padded = base64.urlsafe_b64encode(scalar).decode()
    assert padded.endswith("=")  # 32 bytes: base64 pads them
    private = serialization.load_pem_private_key(key.to_setting().encode(), password=None)
    assert isinstance(private, ec.EllipticCurvePrivateKey)
    sec1 = _pem(private, format=serialization.PrivateFormat.TraditionalOpenSSL)
    assert "BEGIN EC PRIVATE KEY" in sec1
    assert key.to_setting().startswith("-----BEGIN PRIVATE KEY-----")  # PKCS8
    for setting in (key.to_setting(), sec1, padded, padded.rstrip("="), f"  {padded}\n"):
        assert VapidKey.from_setting(setting).public_key == key.public_key


def test_the_public_key_is_the_uncompressed_point_in_base64url_without_padding() -> None:
    key = VapidKey.generate()
    point = unb64url(key.public_key)
    assert len(point) == 65 and point[0] == 4 and "=" not in key.public_key
    assert b64url(point) == key.public_key
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    private = serialization.load_pem_private_key(key.to_setting().encode(), password=None)
    assert isinstance(private, ec.EllipticCurvePrivateKey)
    assert public.public_numbers() == private.public_key().public_numbers()


def _public_point() -> str:
    return VapidKey.generate().public_key


@pytest.mark.parametrize(
    ("setting", "why"),
    [
        ("not a key", "32 bytes in base64url"),
        ("AAAA", "32 bytes in base64url"),
        (b64url(b"\x01" * 31), "32 bytes in base64url"),
        ("é" * 43, "32 bytes in base64url"),
        (b64url(bytes(32)), "not a P-256 private key"),
        (b64url(P256_ORDER.to_bytes(32, "big")), "not a P-256 private key"),
        (b64url(b"\xff" * 32), "not a P-256 private key"),
        ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", "not a PEM"),
    ],
)
def test_settings_that_are_not_a_p256_private_key_are_refused(setting: str, why: str) -> None:
    with pytest.raises(ValueError, match=why) as refused:
        VapidKey.from_setting(setting)
    assert "YOKAI_VAPID_PRIVATE_KEY" in str(refused.value)


def test_a_public_key_given_as_the_setting_is_refused_with_a_hint() -> None:
    with pytest.raises(ValueError, match="a public key"):
        VapidKey.from_setting(_public_point())


def test_pem_keys_of_another_kind_are_refused() -> None:
    with pytest.raises(ValueError, match="on P-256, not secp384r1"):
        VapidKey.from_setting(_pem(ec.generate_private_key(ec.SECP384R1())))
    with pytest.raises(ValueError, match="an EC key"):
        VapidKey.from_setting(_pem(rsa.generate_private_key(65537, 2048)))
    locked = serialization.BestAvailableEncryption(b"secret")
    with pytest.raises(ValueError, match="without a password"):
        VapidKey.from_setting(_pem(ec.generate_private_key(ec.SECP256R1()), encryption=locked))


def test_without_a_setting_a_key_is_made_once_and_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "data" / "vapid.key"
    with caplog.at_level(logging.WARNING, "service.adapters.push.vapid"):
        first = vapid_key(None, path)
    assert "made a VAPID key" in caplog.text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert VapidKey.from_setting(path.read_text()).public_key == first.public_key
    caplog.clear()
    with caplog.at_level(logging.WARNING, "service.adapters.push.vapid"):
        assert vapid_key(None, path).public_key == first.public_key
        assert vapid_key("", path).public_key == first.public_key
    assert caplog.text == ""


def test_a_setting_wins_over_the_key_file(tmp_path: Path) -> None:
    key = VapidKey.generate()
    path = tmp_path / "vapid.key"
    assert vapid_key(b64url(_scalar(key)), path).public_key == key.public_key
    assert not path.exists()


def test_a_damaged_key_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "vapid.key"
    path.write_text("garbage\n")
    with pytest.raises(ValueError, match=str(path)):
        vapid_key(None, path)


@pytest.mark.parametrize(
    ("endpoint", "audience"),
    [
        ("https://push.example.net/wpush/v2/abc?x=1#f", "https://push.example.net"),
        ("https://Push.Example.NET:443/a", "https://push.example.net"),
        ("https://push.example.net:8443/a", "https://push.example.net:8443"),
        ("http://127.0.0.1:8080/push/1", "http://127.0.0.1:8080"),
        ("http://localhost:80/push/1", "http://localhost"),
        ("https://[2001:db8::1]:444/p", "https://[2001:db8::1]:444"),
    ],
)
def test_the_authorization_is_a_jwt_for_the_endpoints_origin(endpoint: str, audience: str) -> None:
    key = VapidKey.generate()
    header = key.authorization(endpoint, "mailto:ops@example.net", NOW)
    assert header.startswith("vapid t=")
    token, k = header.removeprefix("vapid t=").split(", k=")
    assert k == key.public_key
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(k))
    assert jwt.get_unverified_header(token)["alg"] == "ES256"
    claims = jwt.decode(
        token, public, algorithms=["ES256"], audience=audience, options={"verify_exp": False}
    )
    assert claims == {"aud": audience, "exp": NOW + EXPIRES, "sub": "mailto:ops@example.net"}
    assert EXPIRES <= 24 * 3600


@pytest.mark.parametrize("subject", ["ops@example.net", "http://example.net", "mailto:", ""])
def test_a_subject_push_services_cannot_reach_is_refused(subject: str) -> None:
    with pytest.raises(ValueError, match="mailto: or https:"):
        VapidKey.generate().authorization("https://push.example.net/a", subject, NOW)


@pytest.mark.parametrize("endpoint", ["ftp://push.example.net/a", "https:///a", "push"])
def test_an_endpoint_without_an_origin_has_no_authorization(endpoint: str) -> None:
    with pytest.raises(ValueError, match="http"):
        VapidKey.generate().authorization(endpoint, "mailto:ops@example.net", NOW)
