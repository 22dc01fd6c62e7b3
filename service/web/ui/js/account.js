// The player's account, in the lobby (docs/api.md "Accounts"): signing in with an
// OpenID provider (signin.js) or with a code another device made, renaming, making a
// code for another device, and signing out (this browser, or every other one).

import { linkCode, myTokens, rename, signIn, signOut, signOutElsewhere } from "./api.js";
import { fill, h } from "./dom.js";
import { formatTime, t } from "./i18n.js";
import { signedIn } from "./player.js";
import { problemBox, refusalOf } from "./problem.js";
import { providerName, providers, startSignIn } from "./signin.js";

/** @typedef {import("./signin.js").Provider} Provider */

/** "Sign in with <provider>" for each provider of the service; nothing when it has none.
 * Signed in already, a sign-in links the provider's identity to this player.
 * @param {{linking?: boolean}} [options] */
export function signInChoices({ linking = false } = {}) {
  const buttons = h("div", { class: "providers" });
  const error = h("div");
  const box = h(
    "div",
    { class: "sign-in", id: "sign-in", hidden: true },
    h("p", {}, t(linking ? "sign_in_link_text" : "sign_in_text")),
    buttons,
    error,
  );
  providers().then((found) => {
    fill(
      buttons,
      found.map((/** @type {Provider} */ provider) =>
        h(
          "button",
          {
            type: "button",
            class: "provider",
            dataset: { issuer: provider.issuer },
            onclick: async (/** @type {MouseEvent} */ e) => {
              const button = /** @type {HTMLButtonElement} */ (e.currentTarget);
              button.disabled = true;
              fill(error);
              try {
                await startSignIn(provider);
              } catch (err) {
                button.disabled = false;
                fill(error, problemBox(refusalOf(err)));
              }
            },
          },
          t("sign_in_with", { provider: providerName(provider) }),
        ),
      ),
    );
    box.hidden = found.length === 0;
  });
  return box;
}

/** "I have a code": a link code another device made signs this browser in as its player.
 * @param {{onDone: () => void}} options */
export function linkCodeEntry({ onDone }) {
  const input = h("input", {
    id: "link-code-input",
    name: "link_code",
    required: true,
    maxlength: 20,
    autocomplete: "off",
    autocapitalize: "characters",
    spellcheck: "false",
    placeholder: "XXXXX-XXXXX",
  });
  const error = h("div");
  return h(
    "form",
    {
      class: "link-code-entry",
      id: "link-code-form",
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        fill(error);
        const button = /** @type {HTMLFormElement} */ (e.target).querySelector("button");
        if (button) button.disabled = true;
        try {
          await signIn({ link_code: input.value.trim() });
          onDone();
        } catch (err) {
          fill(error, problemBox(refusalOf(err)));
        } finally {
          if (button) button.disabled = false;
        }
      },
    },
    h("h3", {}, t("have_code_title")),
    h("p", {}, t("have_code_text")),
    h("label", { for: "link-code-input" }, t("link_code")),
    " ",
    input,
    " ",
    h("button", { type: "submit" }, t("use_code")),
    error,
  );
}

/** A signed-in player's account: rename, a code for another device, signing out.
 * @param {{redraw: () => void}} options */
export function accountActions({ redraw }) {
  const who = signedIn();
  const out = h("div", { class: "account-out", "aria-live": "polite" });
  const codeBox = h("div", { class: "link-code-box", id: "link-code-box", "aria-live": "polite" });
  const nameInput = h("input", {
    id: "rename-name",
    name: "name",
    required: true,
    maxlength: 40,
    autocomplete: "nickname",
    value: who.name,
  });

  /** @param {HTMLButtonElement | null} button @param {() => Promise<void>} work */
  async function act(button, work) {
    fill(out);
    if (button) button.disabled = true;
    try {
      await work();
    } catch (err) {
      fill(out, problemBox(refusalOf(err)));
    } finally {
      if (button) button.disabled = false;
    }
  }

  /** The button an event came from. @param {Event} e */
  const buttonOf = (e) => /** @type {HTMLButtonElement} */ (e.currentTarget);

  const renameForm = h(
    "form",
    {
      class: "rename",
      id: "rename-form",
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        act(/** @type {HTMLFormElement} */ (e.target).querySelector("button"), async () => {
          await rename(nameInput.value.trim());
          redraw();
        });
      },
    },
    h("label", { for: "rename-name" }, t("new_name")),
    " ",
    nameInput,
    " ",
    h("button", { type: "submit" }, t("rename")),
  );

  // "Sign out everywhere else" only where there is somewhere else: another token of the
  // player's (a sign-in or a linked device), or a link code made from this page.
  const others = h(
    "button",
    {
      type: "button",
      id: "sign-out-others",
      hidden: true,
      onclick: (/** @type {MouseEvent} */ e) =>
        act(buttonOf(e), async () => {
          const n = await signOutElsewhere();
          fill(out, h("p", { id: "signed-out-others", role: "status" }, t("signed_out_others", { n })));
        }),
    },
    t("sign_out_others"),
  );
  // data-known: the page has decided (what a test waits for before it looks).
  myTokens(who.token)
    .then((tokens) => {
      if (tokens.some((token) => !token.current)) others.hidden = false;
    })
    .catch(() => {
      others.hidden = false; // unknown: offered, as before
    })
    .finally(() => {
      others.dataset.known = "1";
    });

  const buttons = h(
    "div",
    { class: "account-actions" },
    h(
      "button",
      {
        type: "button",
        id: "link-device",
        onclick: (/** @type {MouseEvent} */ e) =>
          act(buttonOf(e), async () => {
            const made = await linkCode();
            others.hidden = false;
            fill(
              codeBox,
              h("p", {}, t("link_code_intro")),
              h("p", { class: "code" }, h("code", { id: "link-code" }, made.code)),
              h(
                "p",
                { id: "link-code-expiry", dataset: { expiresAt: made.expires_at } },
                t("link_code_expires", { time: formatTime(made.expires_at) }),
              ),
            );
          }),
      },
      t("link_device"),
    ),
    " ",
    others,
    " ",
    h(
      "button",
      {
        type: "button",
        id: "sign-out",
        onclick: (/** @type {MouseEvent} */ e) => {
          if (!confirm(t("sign_out_confirm"))) return;
          act(buttonOf(e), async () => {
            await signOut();
            redraw();
          });
        },
      },
      t("sign_out"),
    ),
  );
  return h("div", { class: "account" }, renameForm, buttons, codeBox, out);
}
