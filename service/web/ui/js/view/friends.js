// The friends list, drawn (from state/friends.js): each followed player with whether they
// are online (a dot and words), the public games they play (links to watch), Unfollow and
// "Invite to a game"; an empty list says how to follow someone. The Follow button of a
// profile. What the person does goes to friends.js's actions; their refusals are shown
// here.

import { fill, h } from "../dom.js";
import { t } from "../i18n.js";
import { problemBox, refusalOf } from "../problem.js";
import { playerLink } from "../ratings.js";

/** @typedef {import("../state/friends.js").Friend} Friend */

/**
 * What the person does with a friend.
 * @typedef {object} FriendActions
 * @property {(friend: Friend) => Promise<void>} unfollow
 * @property {(friend: Friend) => Promise<void>} invite
 */

/**
 * A button whose work may be refused: disabled while it runs, the refusal shown in `out`.
 * @param {string} text
 * @param {Record<string, any>} props
 * @param {HTMLElement} out
 * @param {() => Promise<void>} work
 */
function actionButton(text, props, out, work) {
  const button = h("button", { type: "button", ...props }, text);
  button.addEventListener("click", async () => {
    button.disabled = true;
    fill(out);
    try {
      await work();
    } catch (err) {
      fill(out, problemBox(refusalOf(err)));
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

/** Online or not: a dot (its colour is not the only sign) and the words. @param {boolean} online */
function presence(online) {
  return h(
    "span",
    { class: `presence ${online ? "online" : "offline"}` },
    h("span", { class: "dot", "aria-hidden": "true" }, online ? "●" : "○"),
    " ",
    t(online ? "friend_online" : "friend_offline"),
  );
}

/** A friend's row. @param {Friend} friend @param {FriendActions} actions */
function friendItem(friend, actions) {
  const out = h("div", { class: "friend-error" });
  const games = friend.playing.length
    ? h(
        "ul",
        { class: "friend-games", "aria-label": t("friend_playing", { name: friend.name }) },
        friend.playing.map((id) => h("li", {}, h("a", { href: `#/game/${id}`, class: "watch" }, t("watch_game", { id: id.slice(0, 8) })))),
      )
    : null;
  return h(
    "li",
    { class: "friend", dataset: { player: friend.player_id } },
    h("span", { class: "friend-name" }, playerLink(friend.player_id, friend.name)),
    presence(friend.online),
    games,
    h(
      "span",
      { class: "friend-actions" },
      actionButton(t("invite_friend"), { class: "primary invite" }, out, () => actions.invite(friend)),
      actionButton(t("unfollow"), { class: "unfollow", "aria-label": t("unfollow_name", { name: friend.name }) }, out, () => actions.unfollow(friend)),
    ),
    out,
  );
}

/**
 * The friends list: `show(friends, more)` draws it (`more`: a next page to ask for);
 * `failed(error)` says why it could not be read.
 * @param {FriendActions & {more: () => Promise<void>}} actions
 */
export function friendsView(actions) {
  const list = h("ul", { class: "friends", id: "friends" }, h("li", { class: "none" }, t("loading")));
  const empty = h("p", { class: "none", id: "friends-empty", hidden: true }, t("friends_empty"));
  const error = h("div");
  const more = h("button", { type: "button", id: "friends-more", hidden: true }, t("more"));
  more.addEventListener("click", async () => {
    more.disabled = true;
    await actions.more();
    more.disabled = false;
  });
  const section = h(
    "div",
    { class: "friends-page" },
    h("h1", {}, t("friends_title")),
    h("p", { class: "intro" }, t("friends_intro")),
    h("section", { class: "panel", "aria-label": t("friends_title") }, list, empty, more, error),
  );
  return {
    section,
    /** @param {readonly Friend[]} friends @param {boolean} hasMore */
    show(friends, hasMore) {
      fill(list, friends.map((f) => friendItem(f, actions)));
      list.hidden = friends.length === 0;
      empty.hidden = friends.length > 0;
      more.hidden = !hasMore;
      fill(error);
    },
    /** @param {unknown} err */
    failed(err) {
      fill(error, problemBox(refusalOf(err)));
    },
  };
}

/**
 * The Follow / Unfollow button of another player's profile: `following` says which it
 * shows; `toggle(on)` follows (true) or unfollows.
 * @param {string} name
 * @param {boolean} following
 * @param {(on: boolean) => Promise<void>} toggle
 */
export function followButton(name, following, toggle) {
  const out = h("div");
  const status = h("span", { class: "follow-status", role: "status" });
  let on = following;
  const button = h("button", { type: "button", id: "follow" }, t(on ? "unfollow" : "follow"));
  button.addEventListener("click", async () => {
    button.disabled = true;
    fill(out);
    try {
      await toggle(!on);
      on = !on;
      button.textContent = t(on ? "unfollow" : "follow");
      status.textContent = t(on ? "now_following" : "no_longer_following", { name });
    } catch (err) {
      fill(out, problemBox(refusalOf(err)));
    } finally {
      button.disabled = false;
    }
  });
  return h("div", { class: "follow" }, button, " ", status, " ", h("a", { href: "#/friends" }, t("nav_friends")), out);
}
