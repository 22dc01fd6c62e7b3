// The client's languages and how a message's template is filled: shared by the page
// (i18n.js) and the service worker (sw.js, which has no document, storage or fetch
// wrapper of the page's): nothing here touches the page.

export const LANGUAGES = ["en", "fr", "de", "zh"];

/** The first of `tags` (a browser's languages, "fr-CA"...) that we have; else English.
 * @param {readonly string[]} tags
 * @returns {string} */
export function pickLanguage(tags) {
  for (const tag of tags) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

/** A template's {placeholders} filled from `params` (one not given stays as it is).
 * @param {string} template
 * @param {Record<string, unknown>} [params]
 * @returns {string} */
export function fillTemplate(template, params = {}) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}
