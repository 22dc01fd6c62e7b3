// A finished game: the fairness check (the revealed server seed against the commitment
// made before the first deal) and the hand record.

import { get } from "./api.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { refusalOf } from "./problem.js";

/** Where docs/fairness.md says how to check a game (served by this service). */
export const FAIRNESS_DOC = "/docs/fairness.md";

/** @param {string} hex */
function hexToBytes(hex) {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** @param {ArrayBuffer} buffer */
function toHex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 of the server seed's bytes, in hex: what the commitment must be
 * (docs/fairness.md: commitment = hex(SHA-256(S)), S the 32 bytes the seed's hex
 * spells). Computed here, in the browser, not taken from the server's word.
 * @param {string} serverSeedHex */
export async function seedDigest(serverSeedHex) {
  return toHex(await crypto.subtle.digest("SHA-256", hexToBytes(serverSeedHex)));
}

/** The fairness check of a finished game, into `slot`.
 * @param {HTMLElement} slot @param {import("./types.js").View} view */
export async function fairnessPanel(slot, view) {
  const fair = view.fairness;
  const link = h("a", { href: FAIRNESS_DOC, target: "_blank", rel: "noopener" }, t("fair_doc_link"));
  const rows = [];
  let verdict;
  let outcome = "unknown";
  if (fair.algorithm !== "yokai-shuffle-v1") {
    verdict = t("fair_not_provable", { algorithm: fair.algorithm });
  } else if (!fair.server_seed) {
    verdict = t("fair_not_revealed");
  } else if (!globalThis.crypto?.subtle) {
    verdict = t("fair_needs_secure_context");
  } else {
    const digest = await seedDigest(fair.server_seed);
    outcome = digest === fair.commitment ? "match" : "mismatch";
    verdict = t(outcome === "match" ? "fair_match" : "fair_mismatch");
    rows.push([t("fair_server_seed"), fair.server_seed], [t("fair_digest"), digest]);
  }
  if (fair.commitment) rows.unshift([t("fair_commitment"), fair.commitment]);
  fill(
    slot,
    h("h2", { id: "fair-title" }, t("fair_title")),
    h("p", { class: `verdict ${outcome}`, dataset: { outcome } }, verdict),
    rows.length > 0 &&
      h(
        "dl",
        { class: "hashes" },
        rows.map(([label, value]) => [h("dt", {}, label), h("dd", {}, h("code", {}, value))]),
      ),
    h("p", {}, t("fair_explain"), " ", link),
  );
}

/** The hand record of a finished game, into `slot`.
 * @param {HTMLElement} slot @param {string} gameId */
export async function recordPanel(slot, gameId) {
  const path = `/v1/games/${gameId}/record`;
  fill(slot, h("h2", { id: "record-title" }, t("record_title")), h("p", {}, t("loading")));
  try {
    const text = await get(path, { accept: "text/plain" });
    fill(
      slot,
      h("h2", { id: "record-title" }, t("record_title")),
      h("p", {}, h("a", { href: path, target: "_blank", rel: "noopener" }, t("record_open"))),
      h("pre", { class: "record-text", tabindex: "0" }, text),
      // The format counts from 0 (docs/record-format.md); the page counts from 1.
      h("p", { class: "record-numbering" }, t("record_numbering")),
    );
  } catch (err) {
    fill(slot, h("h2", { id: "record-title" }, t("record_title")), h("p", { role: "alert" }, refusalOf(err).message));
  }
}
