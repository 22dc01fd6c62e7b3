// A player's profile (#/players/<id>): their ratings by ladder, stats, a chart of a
// ladder's rating after each rated game (inline SVG, no library), and their recent
// finished games. The leaderboards (#/leaderboards?ladder=): the players ranked in a
// ladder, a page at a time (docs/api.md "Ratings, profiles and leaderboards").

import { get } from "./api.js";
import { fill, h } from "./dom.js";
import { formatTime, t } from "./i18n.js";
import { problemBox } from "./problem.js";
import { playerLink, profileOf } from "./ratings.js";
import { LADDERS } from "./state/ladders.js";

const SVG = "http://www.w3.org/2000/svg";
const GAMES_PAGE = 20;
const BOARD_PAGE = 50;

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") el.setAttribute("class", value);
    else el.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const ordinal = (r) => r.mu - 3 * r.sigma;
const round1 = (x) => (Math.round(x * 10) / 10).toFixed(1);

/** The rating (its ordinal, mu − 3σ) after each rated game of a ladder, as a line of
 * points; the first point is the rating before the first game. */
export function historyChart(history, ladder) {
  const width = 480;
  const height = 180;
  const left = 44;
  const right = 12;
  const top = 12;
  const bottom = 24;
  const values = history.length ? [ordinal(history[0].before), ...history.map((e) => ordinal(e.after))] : [];
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (!(high - low > 1)) {
    low -= 1;
    high += 1;
  }
  const x = (i) => left + (values.length > 1 ? (i * (width - left - right)) / (values.length - 1) : (width - left - right) / 2);
  const y = (v) => top + ((high - v) * (height - top - bottom)) / (high - low);
  const label = t("chart_label", { ladder: t(`ladder.${ladder}`), n: history.length });
  const chart = svg(
    "svg",
    { class: "rating-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, "data-ladder": ladder },
    svg("title", {}, label),
    svg("line", { class: "axis", x1: left, y1: top, x2: left, y2: height - bottom }),
    svg("line", { class: "axis", x1: left, y1: height - bottom, x2: width - right, y2: height - bottom }),
    svg("text", { class: "tick", x: left - 4, y: y(high) + 4, "text-anchor": "end" }, round1(high)),
    svg("text", { class: "tick", x: left - 4, y: y(low) + 4, "text-anchor": "end" }, round1(low)),
    svg("text", { class: "tick", x: width - right, y: height - 6, "text-anchor": "end" }, t("chart_games", { n: history.length })),
  );
  if (values.length > 1) {
    chart.append(svg("polyline", { class: "line", points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") }));
  }
  values.forEach((v, i) => {
    const entry = i > 0 ? history[i - 1] : null;
    const text = entry
      ? t("chart_point", { n: i, rating: round1(v), time: formatTime(entry.at) })
      : t("chart_start", { rating: round1(v) });
    chart.append(
      svg(
        "circle",
        { class: entry ? "point" : "start", cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 4, "data-ordinal": round1(v) },
        svg("title", {}, text),
      ),
    );
  });
  return chart;
}

function ratingsTable(profile) {
  const played = LADDERS.filter((l) => profile.ratings[l]);
  if (!played.length) return h("p", { class: "none", id: "no-ratings" }, t("no_ratings"));
  return h(
    "table",
    { class: "ratings-table", id: "ratings" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, t("ladder")),
        h("th", { scope: "col" }, t("rating")),
        h("th", { scope: "col" }, t("rating_mu")),
        h("th", { scope: "col" }, t("rating_sigma")),
        h("th", { scope: "col" }, t("rated_games")),
      ),
    ),
    h(
      "tbody",
      {},
      played.map((ladder) => {
        const r = profile.ratings[ladder];
        return h(
          "tr",
          { dataset: { ladder } },
          h("th", { scope: "row" }, t(`ladder.${ladder}`)),
          h(
            "td",
            { class: "score" },
            h("span", { class: "ordinal" }, String(Math.round(r.ordinal))),
            r.provisional && h("span", { class: "badge provisional", title: t("provisional_title") }, t("provisional")),
          ),
          h("td", { class: "score mu" }, round1(r.mu)),
          h("td", { class: "score sigma" }, round1(r.sigma)),
          h("td", { class: "score games" }, String(r.games)),
        );
      }),
    ),
  );
}

function statsList(stats) {
  const item = (key, value) => h("div", { dataset: { stat: key } }, h("dt", {}, t(`stat.${key}`)), h("dd", {}, String(value)));
  return h(
    "dl",
    { class: "stats", id: "stats" },
    item("games", stats.games),
    item("wins", stats.wins),
    item("rated_games", stats.rated_games),
    item("abandoned", stats.abandoned),
  );
}

function finishedItem(game) {
  return h(
    "li",
    { class: "finished-game", dataset: { game: game.game_id } },
    h(
      "a",
      { href: `#/game/${game.game_id}` },
      t("finished_entry", { id: game.game_id.slice(0, 8), variant: t(`variant.${game.variant}`), players: game.players }),
    ),
    " ",
    game.rated && h("span", { class: "badge rated" }, t("rated")),
    h("span", { class: `badge ${game.won ? "won" : "lost"}` }, t(game.won ? "game_won" : "game_lost")),
    game.abandoned && h("span", { class: "badge abandoned" }, t("game_abandoned")),
    h("span", { class: "updated" }, formatTime(game.finished_at)),
  );
}

export function profilePage(main, id) {
  const playerId = encodeURIComponent(id);
  const controller = new AbortController();
  const root = h("div", { class: "profile", dataset: { player: playerId } }, h("p", { class: "loading" }, t("loading")));
  fill(main, root);

  async function historySection(profile) {
    const played = LADDERS.filter((l) => profile.ratings[l]);
    if (!played.length) return null;
    const slot = h("div", { class: "chart-slot" });
    const best = played.reduce((a, b) => (profile.ratings[b].games > profile.ratings[a].games ? b : a));
    const picker = h(
      "select",
      { id: "history-ladder", onchange: () => show(picker.value) },
      played.map((l) => h("option", { value: l, selected: l === best }, t(`ladder.${l}`))),
    );
    async function show(ladder) {
      try {
        const found = await get(`/v1/players/${playerId}/ratings/${ladder}`);
        if (controller.signal.aborted) return;
        fill(slot, found.history.length ? historyChart(found.history, ladder) : h("p", { class: "none" }, t("no_history")));
      } catch (err) {
        fill(slot, problemBox(err));
      }
    }
    show(best);
    return h(
      "section",
      { class: "panel history", "aria-labelledby": "history-title" },
      h("h2", { id: "history-title" }, t("rating_history")),
      h("label", { class: "field" }, h("span", {}, t("ladder")), picker),
      slot,
    );
  }

  function gamesSection() {
    const list = h("ul", { class: "inbox finished", id: "profile-games" }, h("li", { class: "none" }, t("loading")));
    const more = h("button", { type: "button", id: "profile-games-more", hidden: true }, t("more"));
    const error = h("div");
    let cursor = null;
    let first = true;
    async function load() {
      more.disabled = true;
      try {
        const query = new URLSearchParams({ limit: String(GAMES_PAGE) });
        if (cursor) query.set("cursor", cursor);
        const page = await get(`/v1/players/${playerId}/games?${query}`);
        if (first) fill(list);
        first = false;
        list.append(...page.games.map(finishedItem));
        if (!list.children.length) fill(list, h("li", { class: "none" }, t("no_games")));
        cursor = page.next_cursor;
        more.hidden = !cursor;
      } catch (err) {
        fill(error, problemBox(err));
      } finally {
        more.disabled = false;
      }
    }
    more.addEventListener("click", load);
    load();
    return h(
      "section",
      { class: "panel", "aria-labelledby": "profile-games-title" },
      h("h2", { id: "profile-games-title" }, t("recent_games")),
      list,
      more,
      error,
    );
  }

  (async () => {
    let profile;
    try {
      profile = await profileOf(playerId, { fresh: true }).promise;
    } catch (err) {
      if (!controller.signal.aborted) fill(root, h("h1", {}, t("profile_title")), problemBox(err));
      return;
    }
    if (controller.signal.aborted) return;
    fill(
      root,
      h(
        "header",
        { class: "profile-head" },
        h("h1", { id: "profile-name" }, profile.name),
        profile.bot && h("span", { class: "badge bot" }, t("bot_badge", { level: t(`bot_level.${profile.bot}`) })),
        profile.created_at && h("p", { class: "since" }, t("player_since", { time: formatTime(profile.created_at) })),
      ),
      h(
        "div",
        { class: "profile-grid" },
        h(
          "section",
          { class: "panel", "aria-labelledby": "ratings-title" },
          h("h2", { id: "ratings-title" }, t("ratings_title")),
          ratingsTable(profile),
          h("p", {}, h("a", { href: "#/leaderboards" }, t("see_leaderboards"))),
        ),
        h("section", { class: "panel", "aria-labelledby": "stats-title" }, h("h2", { id: "stats-title" }, t("stats_title")), statsList(profile.stats)),
        await historySection(profile),
        gamesSection(),
      ),
    );
  })();

  return () => controller.abort();
}

export function leaderboardPage(main, params) {
  const controller = new AbortController();
  const ladder = LADDERS.includes(params.get("ladder")) ? params.get("ladder") : LADDERS[0];
  const body = h("tbody", {});
  const table = h(
    "table",
    { class: "leaderboard", id: "leaderboard", dataset: { ladder } },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, t("rank")),
        h("th", { scope: "col" }, t("player")),
        h("th", { scope: "col" }, t("rating")),
        h("th", { scope: "col" }, t("rated_games")),
      ),
    ),
    body,
  );
  const empty = h("p", { class: "none", id: "leaderboard-empty", hidden: true }, t("leaderboard_empty"));
  const more = h("button", { type: "button", id: "leaderboard-more", hidden: true }, t("more"));
  const error = h("div");
  const picker = h(
    "select",
    {
      id: "leaderboard-ladder",
      onchange: () => {
        location.hash = `#/leaderboards?ladder=${picker.value}`;
      },
    },
    LADDERS.map((l) => h("option", { value: l, selected: l === ladder }, t(`ladder.${l}`))),
  );
  // A page's size: BOARD_PAGE, or the link's own `limit` (1–200).
  const limit = Math.min(200, Math.max(1, Number(params.get("limit")) || BOARD_PAGE));
  let cursor = null;

  async function load() {
    more.disabled = true;
    try {
      const query = new URLSearchParams({ limit: String(limit) });
      if (cursor) query.set("cursor", cursor);
      const page = await get(`/v1/leaderboards/${ladder}?${query}`);
      if (controller.signal.aborted) return;
      body.append(
        ...page.players.map((p) =>
          h(
            "tr",
            { dataset: { player: p.player_id, rank: p.rank } },
            h("td", { class: "score rank" }, String(p.rank)),
            h("td", {}, playerLink(p.player_id, p.name)),
            h("td", { class: "score ordinal", title: t("mu_sigma", { mu: round1(p.mu), sigma: round1(p.sigma) }) }, String(Math.round(p.ordinal))),
            h("td", { class: "score games" }, String(p.games)),
          ),
        ),
      );
      empty.hidden = body.children.length > 0;
      table.hidden = body.children.length === 0;
      cursor = page.next_cursor;
      more.hidden = !cursor;
    } catch (err) {
      fill(error, problemBox(err));
    } finally {
      more.disabled = false;
    }
  }
  more.addEventListener("click", load);
  table.hidden = true;
  fill(
    main,
    h(
      "div",
      { class: "leaderboards" },
      h("h1", {}, t("leaderboards_title")),
      h("p", { class: "intro" }, t("leaderboards_intro")),
      h(
        "section",
        { class: "panel" },
        h("label", { class: "field" }, h("span", {}, t("ladder")), picker),
        table,
        empty,
        more,
        error,
      ),
    ),
  );
  load();
  return () => controller.abort();
}
