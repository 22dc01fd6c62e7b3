// A few helpers to build the page. Every text goes in as a text node (never as HTML),
// so nothing a player typed (a name) or the server sent can inject markup or script.

/**
 * What an element may hold: nodes, texts (numbers shown as text), and nothing
 * (null, undefined, false: skipped), nested in arrays at will.
 * @typedef {Node | string | number | boolean | null | undefined | Children} Child
 */
/** @typedef {Child[]} Children */

/**
 * An element's attributes and listeners: `class`, `text`, `dataset`, `on<event>`,
 * `value`/`checked`/`selected` (properties), any other attribute (true: present; null,
 * undefined, false: absent).
 * @typedef {Record<string, any>} Props
 */

/**
 * An element: h("button", {class: "card", onclick: f, "aria-label": label}, child, …).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props} [props]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "value" || key === "checked" || key === "selected") Object.assign(el, { [key]: value });
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

/** @param {Element} el @param {Child[]} children */
function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replace an element's children.
 * @template {Element} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E} */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A random key for Idempotency-Key headers (crypto.randomUUID needs a secure context;
 * getRandomValues does not).
 * @returns {string} */
export function randomKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Wait this long (milliseconds); resolves early, with false, if the signal aborts.
 * @param {number} ms
 * @param {AbortSignal} [signal]
 * @returns {Promise<boolean>} */
export function pause(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}
