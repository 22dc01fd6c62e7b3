// My games, drawn: the inbox (my turn first), the last finished games, and the
// invitations waiting for an answer in a section of their own, first on the lobby (who
// invites, to a game or a rematch; Accept and Decline). What the person does goes to
// lobby.js's actions; their refusals are shown here.

import { remaining } from "../board.js";
import { fill, h } from "../dom.js";
import { formatTime, t } from "../i18n.js";
import { problemBox, refusalOf } from "../problem.js";
import { sortedInbox } from "../state/lobby.js";

/** @typedef {import("../types.js").InboxEntry} InboxEntry */
/** @typedef {import("../types.js").Refusal} Refusal */

/**
 * What the person does with an invitation in My games.
 * @typedef {object} InvitationActions
 * @property {(entry: InboxEntry) => Promise<void>} accept
 * @property {(entry: InboxEntry) => Promise<void>} decline
 */

/** @param {InboxEntry} entry @param {InvitationActions} actions */
function invitationButtons(entry, actions) {
  const out = h("span", { class: "invite-error" });
  /** @param {(entry: InboxEntry) => Promise<void>} work */
  const act = (work) => async (/** @type {MouseEvent} */ e) => {
    const buttons = /** @type {HTMLElement} */ (e.currentTarget).parentElement?.querySelectorAll("button") ?? [];
    for (const b of buttons) b.disabled = true;
    fill(out);
    try {
      await work(entry);
    } catch (err) {
      for (const b of buttons) b.disabled = false;
      fill(out, problemBox(refusalOf(err)));
    }
  };
  return h(
    "span",
    { class: "invitation" },
    h("span", { class: "badge invited" }, t("invited_seat", { n: entry.seat + 1 })),
    h("button", { type: "button", class: "primary accept", onclick: act(actions.accept) }, t("accept")),
    h("button", { type: "button", class: "decline", onclick: act(actions.decline) }, t("decline")),
    out,
  );
}

/**
 * Who invites me, and to what: a rematch (of which game) or a game.
 * @param {InboxEntry} entry
 */
function invitationLine(entry) {
  const rematch = entry.rematch_of ? "rematch" : "game";
  const said = entry.invited_by
    ? t(`invitation_from.${rematch}`, { name: entry.invited_by.name })
    : t(`invitation.${rematch}`);
  return h(
    "p",
    { class: "from" },
    h("strong", {}, said),
    entry.rematch_of && [" ", h("a", { href: `#/game/${entry.rematch_of}`, class: "rematch-of" }, t("rematch_of", { id: entry.rematch_of.slice(0, 8) }))],
  );
}

/** @param {InboxEntry} entry @param {InvitationActions} actions */
function entryItem(entry, actions) {
  return h(
    "li",
    {
      class: `inbox-entry${entry.my_turn ? " my-turn" : ""}${entry.invited ? " invited" : ""}`,
      dataset: { game: entry.game_id, myTurn: entry.my_turn ? "1" : "", invited: entry.invited ? "1" : "" },
    },
    entry.invited && invitationLine(entry),
    h(
      "a",
      { href: `#/game/${entry.game_id}` },
      t("inbox_entry", { id: entry.game_id.slice(0, 8), variant: t(`variant.${entry.variant}`), players: entry.players, status: t(`status.${entry.status}`) }),
    ),
    entry.rated && h("span", { class: "badge rated" }, t("rated")),
    entry.invited ? invitationButtons(entry, actions) : entry.my_turn && h("span", { class: "badge turn" }, t(`my_action.${entry.action}`)),
    entry.deadline &&
      h("span", { class: "deadline", dataset: { deadline: entry.deadline } }, h("span", { class: "left", role: "timer" }, remaining(entry.deadline))),
    h("span", { class: "updated" }, formatTime(entry.updated_at)),
  );
}

/**
 * My games: the inbox (my turn first) and the last finished ones, and the invitations
 * waiting for an answer in a section of their own (first on the page: an invitation is
 * looked for). {section, invitations, show(games), showFinished(games), failed(error),
 * finishedFailed(error)}.
 * @param {InvitationActions} actions
 */
export function gamesView(actions) {
  const list = h("ul", { class: "inbox", id: "inbox" }, h("li", { class: "none" }, t("loading")));
  const finished = h("ul", { class: "inbox finished", id: "finished-games" });
  const invited = h("ul", { class: "inbox", id: "invitations-list" });
  const invitations = h(
    "section",
    { class: "panel invitations", id: "invitations", "aria-labelledby": "invitations-title", hidden: true },
    h("h2", { id: "invitations-title" }, t("invitations")),
    invited,
  );
  /** @param {HTMLElement} into @param {readonly InboxEntry[]} games */
  const entries = (into, games) => fill(into, games.length ? games.map((g) => entryItem(g, actions)) : h("li", { class: "none" }, t("no_games")));
  /** @param {readonly InboxEntry[]} games */
  const show = (games) => {
    const sorted = sortedInbox(games);
    const asked = sorted.filter((g) => g.invited);
    invitations.hidden = asked.length === 0;
    fill(invited, asked.map((g) => entryItem(g, actions)));
    entries(list, sorted.filter((g) => !g.invited));
  };
  return {
    invitations,
    section: h(
      "section",
      { class: "panel games", "aria-labelledby": "games-title" },
      h("h2", { id: "games-title" }, t("my_games")),
      list,
      h("h3", {}, t("finished_games")),
      finished,
    ),
    show,
    /** @param {readonly InboxEntry[]} games */
    showFinished: (games) => entries(finished, games),
    /** @param {Refusal} error */
    failed: (error) => fill(list, h("li", {}, problemBox(error))),
    /** @param {Refusal} error */
    finishedFailed: (error) => fill(finished, h("li", {}, problemBox(error))),
  };
}
