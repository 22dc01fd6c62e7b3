"""The friends list (docs/web-client.md "Friends"), in Chromium against a real `yokai
serve`: an empty list says how to follow someone; a player follows another from their
profile, finds them on the Friends page with their public game to watch, invites them to a
game (which opens, and which the friend's lobby shows as an invitation), and unfollows
them; axe-core clean; at a phone's width nothing is past the screen's edge."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.browser import test_ratings_ui
from tests.browser.conftest import Served, assert_accessible
from tests.browser.test_ratings_ui import Pages, _player

pages = test_ratings_ui.pages  # its fixture: browser contexts holding players, closed after

WAIT = 30_000  # ms
PHONE = {"width": 390, "height": 844}


def _expect() -> Any:
    from playwright.sync_api import expect  # noqa: PLC0415 - skipped without it

    return expect


def test_follow_from_a_profile_then_invite_from_the_friends_page(
    pages: Pages, served: Served, artifacts: Path
) -> None:
    expect = _expect()
    aiko, bea = (_player(served, n) for n in ("Aiko", "Bea"))
    # Bea sits at a public table: the Friends page offers it to watch.
    bots = [{"seat": 2, "level": "basic"}, {"seat": 3, "level": "basic"}]
    public = served.call("POST", "/v1/games", {"players": 4, "bots": bots, "visibility": "public"})
    served.call("POST", f"/v1/games/{public['id']}/seats/0", {}, token=bea["token"])

    # Nobody followed yet: the page says how to follow someone.
    a = pages.open(aiko)
    expect(a.locator("#nav-friends")).to_be_visible(timeout=WAIT)
    a.locator("#nav-friends").click()
    expect(a.locator("#friends-empty")).to_contain_text("press Follow", timeout=WAIT)

    # Aiko follows Bea from Bea's profile; her own profile offers no Follow.
    a.goto(f"{served.base}/#/players/{aiko['id']}")
    expect(a.locator("#profile-name")).to_have_text("Aiko", timeout=WAIT)
    expect(a.locator("#follow")).to_have_count(0)
    a.goto(f"{served.base}/#/players/{bea['id']}")
    follow = a.locator("#follow")
    expect(follow).to_have_text("Follow", timeout=WAIT)
    follow.click()
    expect(a.locator(".follow-status")).to_have_text("You follow Bea.", timeout=WAIT)
    expect(follow).to_have_text("Unfollow")
    listed = served.call("GET", "/v1/me/follows", token=aiko["token"])["players"]
    assert [f["player_id"] for f in listed] == [bea["id"]]
    a.reload()  # the profile read again knows Bea is followed
    expect(a.locator("#follow")).to_have_text("Unfollow", timeout=WAIT)

    # The Friends page: Bea, online or not in words, and her public game to watch.
    a.locator("#nav-friends").click()
    row = a.locator(f'#friends .friend[data-player="{bea["id"]}"]')
    expect(row.locator(".friend-name")).to_have_text("Bea", timeout=WAIT)
    expect(row.locator(".presence")).to_have_text(re.compile(r"^. (online|offline)$"))
    expect(row.locator("a.watch")).to_have_attribute("href", f"#/game/{public['id']}")
    expect(row.locator("a.watch")).to_have_text(f"Watch game {public['id'][:8]}")
    assert_accessible(a, "the Friends page")
    a.set_viewport_size(PHONE)
    expect(row.locator("button.invite")).to_be_visible()
    assert a.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    a.screenshot(path=str(artifacts / "friends-phone.png"), full_page=True)
    a.set_viewport_size({"width": 1280, "height": 900})

    # Invite to a game: a four-player standard game (no Play now asked in this browser),
    # Aiko at the first seat, the second kept for Bea, bots on the rest; its table opens.
    row.locator("button.invite").click()
    expect(a).to_have_url(re.compile(r"#/game/[0-9a-f-]{36}$"), timeout=WAIT)
    game_id = a.url.rsplit("/", 1)[1]
    view = served.call("GET", f"/v1/games/{game_id}")
    assert view["players"] == 4 and view["variant"] == "standard"
    assert [s["reserved_for"] for s in view["seats"]] == [None, bea["id"], None, None]
    assert (view["seats"][0]["joined"], view["seats"][0]["name"]) == (True, "Aiko")

    # Bea's lobby shows the invitation, from Aiko.
    b = pages.open(bea)
    invitation = b.locator(f'#invitations-list .inbox-entry[data-game="{game_id}"]')
    expect(invitation).to_have_attribute("data-invited", "1", timeout=WAIT)
    expect(invitation.locator(".from")).to_have_text("Aiko invites you to a game")

    # Unfollowing empties the list.
    a.goto(f"{served.base}/#/friends")
    expect(row.locator("button.unfollow")).to_have_accessible_name("Unfollow Bea", timeout=WAIT)
    row.locator("button.unfollow").click()
    expect(a.locator("#friends-empty")).to_be_visible(timeout=WAIT)
    assert served.call("GET", "/v1/me/follows", token=aiko["token"])["players"] == []
    assert a.errors == [] and b.errors == []
