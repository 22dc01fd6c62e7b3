// The API reference page (/reference): RapiDoc renders the contract, but leaves the media
// type's <select> of an endpoint with several request types (the import) without an
// accessible name (axe-core's select-name). This names every unnamed <select> and
// <textarea> in RapiDoc's shadow roots while it renders, and again after each click
// (expanding an endpoint renders more). It touches nothing else.

/**
 * @param {Document | ShadowRoot} root
 */
function named(root) {
  for (const select of root.querySelectorAll("select:not([aria-label])")) {
    select.setAttribute("aria-label", "Media type");
  }
  for (const area of root.querySelectorAll("textarea:not([aria-label])")) {
    area.setAttribute("aria-label", "Example");
  }
  for (const element of root.querySelectorAll("*")) {
    if (element.shadowRoot) named(element.shadowRoot);
  }
}

/** Name what RapiDoc renders over the next two seconds (it renders in steps). */
function whileRendering() {
  const until = performance.now() + 2000;
  const step = () => {
    named(document);
    if (performance.now() < until) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}

const doc = document.querySelector("rapi-doc");
if (doc) {
  doc.addEventListener("spec-loaded", whileRendering);
  doc.addEventListener("click", whileRendering);
}
