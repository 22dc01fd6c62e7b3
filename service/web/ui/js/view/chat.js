// A game's chat panel, drawn from its state (state/chat.js): the messages (each author's
// name a menu: mute in this browser, block, report), the presets as buttons, a text field
// where free text is allowed, a refusal in the page's language, and the players muted
// here with Unmute. What the person does goes to the page's actions (chat.js).
//
// The panel lives beside the table, outside what the table draws again at every event:
// a message being typed, an open menu and the log's scroll stay as they are. Messages
// are drawn once each (new ones appended; hidden, not removed, when their author is
// muted): the log is rebuilt only when a message arrives out of order.

import { h, fill } from "../dom.js";
import { language, t } from "../i18n.js";
import { LONGEST_TEXT, hasAuthorMenu, isHidden, messageWords, presetWords, shownMessages, textToSend } from "../state/chat.js";

/** @typedef {import("../types.js").Refusal} Refusal */
/** @typedef {import("../state/chat.js").ChatState} ChatState */
/** @typedef {import("../state/chat.js").ChatMessage} ChatMessage */
/** @typedef {import("../state/chat.js").Muted} Muted */
/** @typedef {ReturnType<typeof import("../state/chat.js").chatAccess>} Access */

/**
 * What the person can do in the chat.
 * @typedef {object} ChatActions
 * @property {(body: {text: string} | {preset: string}) => Promise<boolean>} send resolves
 *   to whether the message was taken (a refusal is the state's `error`)
 * @property {(who: Muted, on: boolean) => void} mute in this browser
 * @property {(playerId: string) => Promise<void>} block rejects with the refusal
 * @property {(message: ChatMessage, reason: string) => Promise<void>} report rejects
 *   with the refusal
 */

/** A refusal in the page's language: what its `code` means, else the server's title.
 * @param {Refusal | unknown} error */
export function chatRefusal(error) {
  const refusal = /** @type {Refusal} */ (error);
  const code = refusal?.code ?? null;
  const known = code ? t(`problem.${code}`) : null;
  const said = known && known !== `problem.${code}` ? known : refusal?.message || String(error);
  return h("p", { class: "problem chat-problem", role: "alert", dataset: { code: code || "" } }, said);
}

/**
 * The author's name as a button, and the menu it opens below the message: Mute, Block,
 * Report (with its reason), each saying how it went.
 * @param {ChatMessage} message
 * @param {ChatActions} actions
 * @returns {[HTMLButtonElement, HTMLDivElement]}
 */
function authorMenu(message, actions) {
  const who = { player_id: /** @type {string} */ (message.from.player_id), name: message.from.name };
  const result = h("div", { class: "menu-result", role: "status" });
  const reason = h("textarea", { id: `report-reason-${message.id}`, rows: 2, maxlength: 500, required: true });
  const form = h(
    "form",
    {
      class: "report-form",
      hidden: true,
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        const why = reason.value.trim();
        if (!why) return;
        actions.report(message, why).then(
          () => {
            form.hidden = true;
            fill(result, t("chat_report_sent"));
          },
          (err) => fill(result, chatRefusal(err)),
        );
      },
    },
    h("label", { for: reason.id }, t("chat_report_reason", { name: who.name })),
    reason,
    h("button", { type: "submit" }, t("chat_report_send")),
  );
  const menu = h(
    "div",
    { class: "menu", id: `chat-menu-${message.id}`, hidden: true },
    h("button", { type: "button", class: "mute", onclick: () => actions.mute(who, true) }, t("chat_mute")),
    h(
      "button",
      {
        type: "button",
        class: "block",
        onclick: () =>
          actions.block(who.player_id).then(
            () => fill(result, t("chat_blocked", { name: who.name })),
            (err) => fill(result, chatRefusal(err)),
          ),
      },
      t("chat_block"),
    ),
    h(
      "button",
      {
        type: "button",
        class: "report",
        onclick: () => {
          form.hidden = false;
          reason.focus();
        },
      },
      t("chat_report"),
    ),
    form,
    result,
  );
  const name = h(
    "button",
    {
      type: "button",
      class: "name author",
      "aria-expanded": "false",
      "aria-controls": menu.id,
      onclick: () => {
        menu.hidden = !menu.hidden;
        name.setAttribute("aria-expanded", String(!menu.hidden));
        if (!menu.hidden) menu.scrollIntoView({ block: "nearest" });
      },
    },
    who.name,
  );
  return [name, menu];
}

/** @param {ChatMessage} message @param {ChatState} state @param {string | null} me @param {ChatActions} actions */
function messageItem(message, state, me, actions) {
  const spectator = message.channel === "spectators";
  const [name, menu] = hasAuthorMenu(message, me) ? authorMenu(message, actions) : [h("span", { class: "name" }, message.from.name), null];
  return h(
    "li",
    {
      class: `chat-message${spectator ? " from-spectator" : ""}`,
      dataset: { id: message.id, channel: message.channel, player: message.from.player_id ?? "" },
    },
    name,
    spectator && [" ", h("span", { class: "badge spectator" }, t("chat_spectator_mark"))],
    " ",
    h("span", { class: "words" }, messageWords(message, state.presets, language())),
    menu,
  );
}

/**
 * The chat panel: {el, render(state, access, me)}.
 * @param {ChatActions} actions
 */
export function chatView(actions) {
  const title = h("h2", { id: "chat-title" });
  const list = h("ol", { class: "chat-messages" });
  const none = h("p", { class: "chat-none" }, t("chat_none"));
  const log = h("div", { class: "chat-log", role: "log", tabindex: 0, "aria-label": t("chat_log") }, none, list);
  const controls = h("div", { class: "chat-controls" });
  const problem = h("div", { class: "chat-problem-slot" });
  const mutedSlot = h("div", { class: "chat-muted" });
  const el = h("section", { class: "panel chat", id: "chat", "aria-labelledby": "chat-title" }, title, log, problem, controls, mutedSlot);
  /** @type {Map<number, HTMLLIElement>} */
  const drawn = new Map();
  let drawnFor = "";

  /** The presets and the text field, drawn again only when who may say what changes.
   * @param {ChatState} state @param {Access} access */
  function drawControls(state, access) {
    if (access.channel === null) {
      fill(
        controls,
        access.why === "left"
          ? h("p", { class: "chat-left" }, t("problem.seat_left"))
          : h("p", { class: "chat-sign-in" }, t("chat_sign_in"), " ", h("a", { href: "#/" }, t("chat_lobby_link"))),
      );
      return;
    }
    const field = h("input", { type: "text", id: "chat-text", maxlength: LONGEST_TEXT, autocomplete: "off" });
    const form =
      access.freeText &&
      h(
        "form",
        {
          class: "chat-form",
          onsubmit: (/** @type {Event} */ e) => {
            e.preventDefault();
            const text = textToSend(field.value);
            if (text === null) return;
            actions.send({ text }).then((taken) => {
              if (taken) field.value = "";
            });
          },
        },
        h("label", { for: "chat-text" }, t("chat_text_label")),
        h("div", { class: "chat-row" }, field, h("button", { type: "submit", class: "primary", id: "chat-send" }, t("chat_send"))),
      );
    fill(
      controls,
      h(
        "div",
        { class: "chat-presets", role: "group", "aria-label": t("chat_presets") },
        state.presets.map((p) =>
          h("button", { type: "button", dataset: { preset: p.id }, onclick: () => actions.send({ preset: p.id }) }, presetWords(p, language())),
        ),
      ),
      form,
      !access.freeText && h("p", { class: "chat-note", id: "chat-presets-only" }, t("chat_presets_only")),
      access.channel === "spectators" && h("p", { class: "chat-note" }, t("chat_spectators_note")),
    );
  }

  /** @param {ChatState} state @param {string | null} me */
  function drawMessages(state, me) {
    const ids = state.messages.map((m) => m.id);
    const inOrder = [...drawn.keys()].every((id, i) => ids[i] === id);
    if (!inOrder) {
      drawn.clear();
      list.replaceChildren();
    }
    const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    for (const message of state.messages.slice(drawn.size)) {
      const item = messageItem(message, state, me, actions);
      drawn.set(message.id, item);
      list.append(item);
    }
    for (const message of state.messages) {
      const item = drawn.get(message.id);
      if (item) item.hidden = isHidden(state, message);
    }
    none.hidden = shownMessages(state).length > 0;
    if (atBottom) log.scrollTop = log.scrollHeight; // follow the talk, unless reading back
  }

  /** @param {ChatState} state @param {Access} access @param {string | null} me */
  function render(state, access, me) {
    title.textContent = access.channel === "spectators" ? t("chat_title_spectators") : t("chat_title");
    const controlsFor = JSON.stringify([access, state.presets.length]);
    if (controlsFor !== drawnFor) {
      drawnFor = controlsFor;
      drawControls(state, access);
    }
    for (const button of controls.querySelectorAll("button")) button.disabled = state.busy;
    log.hidden = access.channel === null;
    drawMessages(state, me);
    fill(problem, state.error && chatRefusal(state.error));
    fill(
      mutedSlot,
      state.muted.length > 0 && [
        h("h3", {}, t("chat_muted_title")),
        h(
          "ul",
          {},
          state.muted.map((who) =>
            h("li", {}, h("button", { type: "button", dataset: { unmute: who.player_id }, onclick: () => actions.mute(who, false) }, t("chat_unmute", { name: who.name }))),
          ),
        ),
      ],
    );
  }

  return { el, render };
}
