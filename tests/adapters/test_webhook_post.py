"""The webhook sender's network guard and its one POST (service/adapters/webhook_http.py):
URLs refused at registration and again at delivery, against a real receiver on
127.0.0.1: delivered, an error status, a receiver that hangs, a redirect not followed;
and each attempt counted in the metrics by its outcome."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service import metrics
from service.adapters.webhook_delivery import HttpSender
from service.adapters.webhook_http import UrlForbiddenError, check_url, post
from tests.support.webhook_receiver import receiving

PUBLIC = "https://93.184.216.34/hook"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://93.184.216.34/x", "only http and https"),
        ("https://u:p@93.184.216.34/x", "no credentials"),
        ("http:///x", "no host"),
        ("http://127.0.0.1/x", "non-public"),
        ("http://10.0.0.1/x", "non-public"),
        ("http://172.16.5.4/x", "non-public"),
        ("http://192.168.1.1/x", "non-public"),
        ("http://169.254.169.254/x", "non-public"),
        ("http://224.0.0.1/x", "non-public"),
        ("http://0.0.0.0/x", "non-public"),
        ("http://[::1]/x", "non-public"),
        ("http://[fe80::1]/x", "non-public"),
        ("http://[::ffff:10.0.0.1]/x", "non-public"),
        ("http://name.invalid/x", "does not resolve"),
        ("https://93.184.216.34:99999/x", "not a URL"),
    ],
)
def test_urls_that_are_refused(url: str, why: str) -> None:
    with pytest.raises(UrlForbiddenError) as info:
        check_url(url, allow_private=False)
    assert why in info.value.reason


def test_public_addresses_pass_and_the_switch_lets_private_ones_through() -> None:
    check_url(PUBLIC, allow_private=False)
    check_url("http://127.0.0.1:8080/x", allow_private=True)
    with pytest.raises(UrlForbiddenError):
        check_url("ftp://127.0.0.1/x", allow_private=True)  # the scheme still counts


def test_a_post_arrives_with_its_body_and_headers() -> None:
    with receiving() as receiver:
        done = post(receiver.url, b'{"a":1}', {"webhook-id": "msg_1"}, allow_private=True)
        (got,) = receiver.wait_for(1)
    assert (done.status, done.error) == (204, None)
    assert got.body == b'{"a":1}' and got.headers["webhook-id"] == "msg_1"
    assert got.headers["Content-Type"] == "application/json"


def test_an_error_status_is_reported_not_raised() -> None:
    with receiving() as receiver:
        receiver.answers = [500]
        done = post(receiver.url, b"{}", {}, allow_private=True)
    assert (done.status, done.error) == (500, None)


def test_a_receiver_that_hangs_is_given_up_at_the_timeout() -> None:
    with receiving() as receiver:
        receiver.hang = 5.0
        done = post(receiver.url, b"{}", {}, allow_private=True, timeout=1.0)
    assert (done.status, done.error) == (None, "timeout")


def test_a_refused_connection_is_an_error() -> None:
    with receiving() as receiver:
        url = receiver.url
    done = post(url, b"{}", {}, allow_private=True)  # the receiver is gone
    assert done.status is None and done.error == "connection refused"


def test_a_redirect_is_not_followed() -> None:
    with receiving() as target, receiving() as receiver:
        receiver.answers = [302]
        receiver.location = target.url
        done = post(receiver.url, b"{}", {}, allow_private=True)
        assert done.status == 302
        assert target.started == 0


def test_a_private_address_is_refused_at_delivery_and_nothing_is_sent() -> None:
    with receiving() as receiver:
        done = post(receiver.url, b"{}", {}, allow_private=False)
        assert done.status is None and done.error is not None
        assert done.error.startswith("forbidden address")
        assert receiver.started == 0


def test_a_receiver_that_keeps_connections_alive_gets_the_next_post_on_the_same_one() -> None:
    with receiving(keep_alive=True) as receiver:
        for n in range(3):
            done = post(receiver.url, b"{}", {"n": str(n)}, allow_private=True)
            assert (done.status, done.error) == (204, None)
        got = receiver.wait_for(3)
    assert len({r.peer for r in got}) == 1


def test_a_kept_connection_the_receiver_closed_is_replaced() -> None:
    """The receiver says keep-alive, then closes the connection (an idle timeout): the
    next post finds it closed and goes again on a new one."""
    with receiving(keep_alive=True) as receiver:
        receiver.drop_kept = True
        for _ in range(2):
            done = post(receiver.url, b"{}", {}, allow_private=True)
            assert (done.status, done.error) == (204, None)
        got = receiver.wait_for(2)
    assert len({r.peer for r in got}) == 2


def _deliveries() -> dict[str, float]:
    """yokai_webhook_deliveries_total by outcome, as /metrics gives it."""
    body, _ = metrics.render(None)
    return {
        s.labels["outcome"]: s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
        if s.name == "yokai_webhook_deliveries_total"
    }


def test_the_sender_counts_each_attempt_by_its_outcome() -> None:
    """yokai_webhook_deliveries_total: delivered (a 2xx), failed (any other answer),
    error (no answer), one attempt each."""
    sender = HttpSender(allow_private=True)
    before = _deliveries()

    def added() -> dict[str, float]:
        now = _deliveries()
        return {k: now[k] - before[k] for k in ("delivered", "failed", "error")}

    with receiving() as receiver:
        receiver.answers = [500, 302]
        assert sender.post(receiver.url, b"{}", {}).status == 500
        assert added() == {"delivered": 0, "failed": 1, "error": 0}
        assert sender.post(receiver.url, b"{}", {}).status == 302
        assert sender.post(receiver.url, b"{}", {}).status == 204
        assert added() == {"delivered": 1, "failed": 2, "error": 0}
        url = receiver.url
    assert sender.post(url, b"{}", {}).status is None  # the receiver is gone
    assert HttpSender(allow_private=False).post(url, b"{}", {}).status is None  # forbidden
    assert added() == {"delivered": 1, "failed": 2, "error": 2}
