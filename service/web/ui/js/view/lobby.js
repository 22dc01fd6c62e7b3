// The lobby, drawn: who I am (or the welcome: a name, a provider, a code), the new-game
// form (the options form with the clock, public, and each seat's choice), opening a game
// by what was pasted, and my games (invitations, first, answered there). What the person does
// goes to lobby.js's actions; their refusals are shown here.

import { accountActions, linkCodeEntry, signInChoices } from "../account.js";
import { remaining } from "../board.js";
import { fill, h } from "../dom.js";
import { formatTime, language, t, tNodes } from "../i18n.js";
import { notifyMe } from "../notifications.js";
import { problemBox, refusalOf } from "../problem.js";
import { playerLink } from "../ratings.js";
import { sortedInbox } from "../state/lobby.js";
import { newGameRequest } from "../state/options.js";
import { checkedOf, fieldOf, modeOf, optionsForm, select, valueOf } from "./options.js";

/** @typedef {import("../dom.js").Child} Child */
/** @typedef {import("../types.js").InboxEntry} InboxEntry */
/** @typedef {import("../types.js").Player} Player */
/** @typedef {import("../types.js").Refusal} Refusal */
/** @typedef {import("../types.js").Session} Session */
/** @typedef {import("../state/options.js").NewGameBody} NewGameBody */

/**
 * Why a pasted text opened no game: not an id, a short id without a player to look it up
 * for, a short id of several games, or of none.
 * @typedef {{kind: "junk"} | {kind: "need_player" | "ambiguous" | "unknown", prefix: string}} NotOpened
 */

/**
 * The lobby's page: its title, the rules' link, and its sections.
 * @param {HTMLElement} main
 * @param {Child[]} sections
 */
export function lobbyLayout(main, sections) {
  const rules = h("a", { href: `/ui/rules/${language()}.html`, target: "_blank", rel: "noopener", id: "rules-link", hreflang: language() }, t("rules_link"));
  fill(main, h("h1", {}, t("lobby_title")), h("p", { class: "intro" }, t("lobby_intro"), " ", rules), h("div", { class: "lobby" }, sections));
}

/**
 * What the sign-in this page came back from gave: who, or why not.
 * @param {{session: Session} | {error: unknown} | null} outcome
 */
function signInOutcome(outcome) {
  if (!outcome) return null;
  if ("error" in outcome) return problemBox(refusalOf(outcome.error));
  return h("p", { class: "notice", id: "signed-in", role: "status" }, t("signed_in_as", { name: outcome.session.player.name }));
}

/**
 * Who I am: this browser's player (their account; forgetting them), or the welcome (a
 * name to become a player, a provider, a code from another device).
 * @param {Player | null} who
 * @param {object} context
 * @param {{session: Session} | {error: unknown} | null} context.outcome
 * @param {boolean} context.signedOut this browser's token was refused meanwhile
 * @param {(name: string) => Promise<void>} context.become
 * @param {() => void} context.forget
 * @param {() => void} context.redraw
 * @param {() => void} context.signedIn a code from another device was used
 */
export function identitySection(who, { outcome, signedOut, become, forget, redraw, signedIn }) {
  if (who) {
    return h(
      "section",
      { class: "panel identity", "aria-labelledby": "me-title" },
      h("h2", { id: "me-title" }, t("me_title")),
      signInOutcome(outcome),
      h("p", { id: "me-name", dataset: { player: who.id } }, tNodes("playing_as", { name: playerLink(who.id, who.name) })),
      h("p", {}, h("a", { href: `#/players/${who.id}`, id: "my-profile" }, t("my_profile"))),
      h("p", { class: "my-id" }, t("my_player_id"), " ", h("code", { id: "my-player-id" }, who.id)),
      notifyMe(),
      h("p", {}, h("a", { href: "#/notifications", id: "notifications-link" }, t("notifications_link"))),
      accountActions({ redraw }),
      signInChoices({ linking: true }),
      h(
        "button",
        {
          type: "button",
          class: "quiet",
          id: "forget-me",
          onclick: () => {
            if (confirm(t("forget_confirm"))) forget();
          },
        },
        t("forget_me"),
      ),
    );
  }
  const error = h("div");
  const input = h("input", { id: "player-name", name: "name", required: true, maxlength: 40, autocomplete: "nickname" });
  return h(
    "section",
    { class: "panel identity", "aria-labelledby": "me-title" },
    h("h2", { id: "me-title" }, t("welcome_title")),
    signInOutcome(outcome),
    signedOut && h("p", { class: "notice", id: "signed-out", role: "status" }, t("signed_out_notice")),
    h("p", {}, t("welcome_text")),
    h(
      "form",
      {
        onsubmit: async (/** @type {SubmitEvent} */ e) => {
          e.preventDefault();
          try {
            await become(input.value.trim());
          } catch (err) {
            fill(error, problemBox(refusalOf(err)));
          }
        },
      },
      h("label", { for: "player-name" }, t("your_name")),
      " ",
      input,
      " ",
      h("button", { type: "submit", class: "primary" }, t("become_player")),
    ),
    error,
    signInChoices(),
    linkCodeEntry({ onDone: signedIn }),
  );
}

/**
 * A seat's choice in the new-game form, and the player id field shown for "invite".
 * @param {number} seat
 * @param {() => void} offerPastPlayers
 */
function seatChoice(seat, offerPastPlayers) {
  const invitee = h("input", {
    name: `invite${seat}`,
    id: `new-invite-${seat}`,
    list: "past-players",
    autocomplete: "off",
    spellcheck: "false",
    placeholder: t("invite_placeholder"),
    "aria-label": t("invite_seat", { n: seat + 1 }),
    hidden: true,
  });
  const options = [
    ["me", t("seat_choice.me")],
    ["open", t("seat_choice.open")],
    ["basic", t("seat_choice.basic")],
    ["random", t("seat_choice.random")],
    ["strong", t("seat_choice.strong")],
    ["expert", t("seat_choice.expert")],
    ["invite", t("seat_choice.invite")],
  ];
  const choice = h(
    "select",
    {
      name: `seat${seat}`,
      id: `new-seat-${seat}`,
      onchange: () => {
        invitee.hidden = choice.value !== "invite";
        invitee.required = !invitee.hidden;
        if (!invitee.hidden) offerPastPlayers();
      },
    },
    options.map(([v, text]) => h("option", { value: v, selected: v === (seat === 0 ? "me" : "basic") }, text)),
  );
  return h("span", { class: "seat-choice" }, h("label", { class: "field" }, h("span", {}, t("seat_n", { n: seat + 1 })), choice), invitee);
}

/**
 * The new-game form: the options form with the clock (its settings disabled while it is
 * off), public, and each seat's choice; the players of my past games offered to invite.
 * @param {object} actions
 * @param {(body: NewGameBody, mine: number | null) => Promise<void>} actions.create
 * @param {() => Promise<{id: string, name: string}[]>} actions.pastPlayers
 */
export function createSection({ create, pastPlayers }) {
  const error = h("div");
  const seatsBox = h("fieldset", { class: "seats-choice" });
  const pastList = h("datalist", { id: "past-players" });
  let pastAsked = false;
  function offerPastPlayers() {
    if (pastAsked) return;
    pastAsked = true;
    pastPlayers().then((found) => fill(pastList, found.map((p) => h("option", { value: p.id, label: p.name }, p.name))));
  }
  const button = h("button", { type: "submit", class: "primary", id: "create-game" }, t("create_game"));
  const clockBox = h(
    "fieldset",
    { class: "clock-choice" },
    h("legend", {}, t("clock")),
    h(
      "label",
      { class: "check" },
      // The clock's settings are disabled (and look it) while the clock is off.
      h("input", { type: "checkbox", name: "clock", id: "new-clock", onchange: () => clockSettings() }),
      " ",
      t("clock_use"),
    ),
    h(
      "label",
      { class: "field clock-setting" },
      h("span", {}, t("turn_seconds")),
      h("input", { type: "number", name: "turn_seconds", id: "new-turn-seconds", min: 1, max: 1209600, value: "60", disabled: true }),
    ),
    select("new-on_timeout", "on_timeout", [["autoplay", t("on_timeout.autoplay")], ["forfeit", t("on_timeout.forfeit")]], t("on_timeout")),
  );
  const form = optionsForm({
    id: "new-game",
    className: "new-game",
    prefix: "new",
    between: [clockBox, h("label", { class: "check" }, h("input", { type: "checkbox", name: "public", id: "new-public" }), " ", t("public_use"))],
    after: [seatsBox, pastList],
    end: [button, error],
  });
  function clockSettings() {
    const on = checkedOf(form, "clock");
    fieldOf(form, "turn_seconds").disabled = !on;
    fieldOf(form, "on_timeout").disabled = !on;
    clockBox.dataset.on = on ? "1" : "";
  }
  function seatRows() {
    const n = Number(valueOf(form, "players"));
    fill(seatsBox, h("legend", {}, t("seats")), Array.from({ length: n }, (_, seat) => seatChoice(seat, offerPastPlayers)));
  }
  clockSettings();
  fieldOf(form, "players").addEventListener("change", seatRows);
  seatRows();
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    fill(error);
    const mode = modeOf(form);
    const made = newGameRequest(mode, {
      clock: checkedOf(form, "clock") ? { turn_seconds: Number(valueOf(form, "turn_seconds")), on_timeout: valueOf(form, "on_timeout") } : null,
      isPublic: checkedOf(form, "public"),
      seats: Array.from({ length: mode.players }, (_, seat) => ({ choice: valueOf(form, `seat${seat}`), invite: valueOf(form, `invite${seat}`) })),
    });
    if ("error" in made) {
      fill(error, h("p", { role: "alert", class: "problem" }, t("one_seat_only")));
      return;
    }
    button.disabled = true;
    try {
      await create(made.body, made.mine);
    } catch (err) {
      fill(error, problemBox(refusalOf(err)));
    } finally {
      button.disabled = false;
    }
  });
  return h("section", { class: "panel create", "aria-labelledby": "create-title" }, h("h2", { id: "create-title" }, t("new_game")), form);
}

/** @param {NotOpened} why */
function notOpenedText(why) {
  switch (why.kind) {
    case "need_player":
      return t("open_need_full_id", { id: why.prefix });
    case "ambiguous":
      return t("open_ambiguous", { id: why.prefix });
    case "unknown":
      return t("open_not_found", { id: why.prefix });
    default:
      return t("open_not_an_id");
  }
}

/**
 * "Open a game": a link, a whole id or a short id; `open` opens it, or says why not.
 * @param {(text: string) => Promise<NotOpened | null>} open
 */
export function openSection(open) {
  const input = h("input", { id: "open-game", name: "game", required: true, placeholder: t("game_link_placeholder"), "aria-describedby": "open-game-message" });
  const message = h("p", { id: "open-game-message", class: "open-message", role: "status", "aria-live": "polite" });
  return h(
    "section",
    { class: "panel open", "aria-labelledby": "open-title" },
    h("h2", { id: "open-title" }, t("open_game")),
    h(
      "form",
      {
        onsubmit: async (/** @type {SubmitEvent} */ e) => {
          e.preventDefault();
          message.textContent = t("open_looking");
          message.classList.remove("problem");
          try {
            const why = await open(input.value);
            message.textContent = why ? notOpenedText(why) : "";
            if (!why) return;
          } catch (err) {
            message.textContent = refusalOf(err).message;
          }
          message.classList.add("problem");
        },
      },
      h("label", { for: "open-game" }, t("game_link")),
      " ",
      input,
      " ",
      h("button", { type: "submit" }, t("open")),
    ),
    message,
  );
}

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
