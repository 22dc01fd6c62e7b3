// A scripted fetch() for the client's modules under node: each call is recorded and
// answered by the next answer of the script (a Response, or a function of the request
// that gives one); with the script used up, a call is held until its signal aborts, as
// a long-poll or a stream the server keeps open would be.

/**
 * @param {...(Response | ((url: string, init: RequestInit) => Response | Promise<Response>))} answers
 */
export function fakeFetch(...answers) {
  /** @type {{url: string, init: RequestInit, headers: Headers}[]} */
  const calls = [];
  /** @param {string | URL | Request} url @param {RequestInit} [init] */
  async function fetch(url, init = {}) {
    calls.push({ url: String(url), init, headers: new Headers(init.headers) });
    const { signal } = init;
    if (signal?.aborted) throw signal.reason;
    const next = answers.shift();
    if (next === undefined) {
      return new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
    }
    return typeof next === "function" ? next(String(url), init) : next;
  }
  return { fetch, calls };
}

/** A JSON answer. @param {unknown} body @param {{status?: number, headers?: Record<string, string>}} [options] */
export function json(body, { status = 200, headers = {} } = {}) {
  const type = status >= 400 ? "application/problem+json" : "application/json";
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": type, ...headers } });
}

/** A 304: what the client has is current. @param {string} etag */
export function notModified(etag) {
  return new Response(null, { status: 304, headers: { ETag: etag } });
}

/** An event stream's answer, its body given in chunks (split anywhere). @param {string[]} chunks */
export function eventStream(chunks) {
  const encoder = new TextEncoder();
  const body = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
}

/** Put `fake` in place of the global fetch for one test. @param {import("node:test").TestContext} t @param {typeof fetch} fake */
export function useFetch(t, fake) {
  const real = globalThis.fetch;
  globalThis.fetch = fake;
  t.after(() => {
    globalThis.fetch = real;
  });
}
