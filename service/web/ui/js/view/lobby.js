// The lobby, drawn: who I am (or the welcome: a name, a provider, a code), the new-game
// form (the options form with the clock, public, and each seat's choice), opening a game
// by what was pasted (my games and invitations: view/games.js). What the person does goes
// to lobby.js's actions; their refusals are shown here.

import { accountActions, linkCodeEntry, signInChoices } from "../account.js";
import { fill, h } from "../dom.js";
import { language, t, tNodes } from "../i18n.js";
import { notifyMe } from "../notifications.js";
import { problemBox, refusalOf } from "../problem.js";
import { playerLink } from "../ratings.js";
import { newGameRequest } from "../state/options.js";
import { checkedOf, fieldOf, modeOf, optionsForm, select, valueOf } from "./options.js";

/** @typedef {import("../dom.js").Child} Child */
/** @typedef {import("../types.js").Player} Player */
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
