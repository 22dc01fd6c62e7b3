// The game options form, one for "Play now" (finding.js) and a new game (lobby.js): the
// mode (players, scoring, variant), each caller's own fields, "Rated". What it says is
// turned into requests by state/options.js.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { PLAYERS, SCORINGS, VARIANTS } from "../state/options.js";

/** @typedef {import("../dom.js").Child} Child */
/** @typedef {import("../state/options.js").Mode} Mode */

/**
 * A labelled select: `options` as [value, text], `value` chosen (the first unless said).
 * @param {string} id
 * @param {string} name
 * @param {[string, string][]} options
 * @param {string} label
 * @param {string} [value]
 */
export function select(id, name, options, label, value = options[0][0]) {
  return h(
    "label",
    { class: "field" },
    h("span", {}, label),
    h(
      "select",
      { name, id },
      options.map(([v, text]) => h("option", { value: v, selected: v === value }, text)),
    ),
  );
}

/**
 * The form: its mode (ids `<prefix>-players`, `<prefix>-scoring`, `<prefix>-variant`),
 * `between` (the caller's fields), "Rated" (`<prefix>-rated`), `after`, then `end` (the
 * submit button and what goes with it).
 * @param {object} parts
 * @param {string} parts.id
 * @param {string} parts.className
 * @param {string} parts.prefix
 * @param {Child[]} [parts.between]
 * @param {Child[]} [parts.after]
 * @param {Child[]} [parts.end]
 */
export function optionsForm({ id, className, prefix, between = [], after = [], end = [] }) {
  return h(
    "form",
    { id, class: className },
    h(
      "div",
      { class: "fields" },
      select(`${prefix}-players`, "players", PLAYERS.map((n) => [String(n), t("players_n", { n })]), t("players")),
      select(`${prefix}-scoring`, "scoring", SCORINGS.map((s) => [s, t(`scoring.${s}`)]), t("scoring")),
      select(`${prefix}-variant`, "variant", VARIANTS.map((v) => [v, t(`variant.${v}`)]), t("variant")),
    ),
    between,
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "rated", id: `${prefix}-rated` }), " ", t("rated_use")),
    after,
    end,
  );
}

/**
 * A field of a form, by name: an input or a select.
 * @param {HTMLFormElement} form
 * @param {string} name
 */
export function fieldOf(form, name) {
  return /** @type {HTMLInputElement | HTMLSelectElement} */ (form.elements.namedItem(name));
}

/**
 * The value of a form's field.
 * @param {HTMLFormElement} form
 * @param {string} name
 */
export function valueOf(form, name) {
  return fieldOf(form, name).value;
}

/**
 * Whether a form's checkbox is ticked.
 * @param {HTMLFormElement} form
 * @param {string} name
 */
export function checkedOf(form, name) {
  return /** @type {HTMLInputElement} */ (fieldOf(form, name)).checked;
}

/**
 * Set the form's mode (a remembered one).
 * @param {HTMLFormElement} form
 * @param {Mode} mode
 */
export function setMode(form, mode) {
  fieldOf(form, "players").value = String(mode.players);
  fieldOf(form, "scoring").value = mode.scoring;
  fieldOf(form, "variant").value = mode.variant;
  /** @type {HTMLInputElement} */ (fieldOf(form, "rated")).checked = mode.rated;
}

/**
 * The mode the form says.
 * @param {HTMLFormElement} form
 * @returns {Mode}
 */
export function modeOf(form) {
  return {
    players: Number(valueOf(form, "players")),
    scoring: valueOf(form, "scoring"),
    variant: valueOf(form, "variant"),
    rated: checkedOf(form, "rated"),
  };
}
