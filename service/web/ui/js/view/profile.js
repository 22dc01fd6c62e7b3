// A player's profile and the leaderboards, drawn (from state/profile.js): the rating
// history as a small inline SVG chart (no library), the ratings by ladder, the stats, a
// finished game, a leaderboard's row. profile.js wires them to the API.

import { fill, h } from "../dom.js";
import { formatTime, t } from "../i18n.js";
import { banLine } from "../problem.js";
import { playerLink } from "../ratings.js";
import { FRAME, chartPoints, laddersOf, round1 } from "../state/profile.js";

/** @typedef {import("../types.js").Profile} Profile */
/** @typedef {import("../state/profile.js").HistoryEntry} HistoryEntry */

/**
 * A finished game of a player's (GET /v1/players/{id}/games).
 * @typedef {{game_id: string, variant: string, players: number, rated: boolean, won: boolean, abandoned: boolean, finished_at: string}} FinishedGame
 */

/**
 * A person ranked in a ladder (GET /v1/leaderboards/{ladder}, asked without `bots`: no
 * bot level is listed, each row's `bot` is null).
 * @typedef {{player_id: string, name: string, rank: number, mu: number, sigma: number, ordinal: number, games: number}} Ranked
 */

const SVG = "http://www.w3.org/2000/svg";

/**
 * An SVG element (its attributes as text; its children nodes or text).
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @param {...(Node | string | null)} children
 */
function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  for (const child of children) if (child !== null) el.append(child);
  return el;
}

/** The rating (its ordinal, mu − 3σ) after each rated game of a ladder, as a line of
 * points; the first point is the rating before the first game.
 * @param {readonly HistoryEntry[]} history
 * @param {string} ladder */
export function historyChart(history, ladder) {
  const { width, height, left, right, top, bottom } = FRAME;
  const { low, high, y, points } = chartPoints(history, FRAME);
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
  if (points.length > 1) {
    chart.append(svg("polyline", { class: "line", points: points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ") }));
  }
  points.forEach(({ value, x, y: at, entry }, i) => {
    const text = entry ? t("chart_point", { n: i, rating: round1(value), time: formatTime(entry.at) }) : t("chart_start", { rating: round1(value) });
    chart.append(
      svg("circle", { class: entry ? "point" : "start", cx: x.toFixed(1), cy: at.toFixed(1), r: 4, "data-ordinal": round1(value) }, svg("title", {}, text)),
    );
  });
  return chart;
}

/** The player's rating in each ladder played. @param {Profile} profile */
export function ratingsTable(profile) {
  const { played } = laddersOf(profile);
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
        return (
          r &&
          h(
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
          )
        );
      }),
    ),
  );
}

/** @param {Profile["stats"]} stats */
export function statsList(stats) {
  /** @param {string} key @param {number} value */
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

/** A person's reputation, and their running ban if any (a bot has none: null).
 * @param {Profile} profile */
export function reputationList(profile) {
  const r = profile.reputation;
  if (!r) return null;
  /** @param {string} key @param {number} value */
  const item = (key, value) => h("div", { dataset: { reputation: key } }, h("dt", {}, t(`reputation.${key}`)), h("dd", {}, String(value)));
  return h(
    "div",
    { id: "reputation" },
    h("dl", { class: "stats" }, item("score", r.score), item("finished", r.finished), item("abandoned", r.abandoned), item("timeouts", r.timeouts)),
    profile.ban ? banLine(profile.ban) : h("p", { class: "none", id: "not-banned" }, t("not_banned")),
  );
}

/** @param {FinishedGame} game */
export function finishedItem(game) {
  return h(
    "li",
    { class: "finished-game", dataset: { game: game.game_id } },
    h("a", { href: `#/game/${game.game_id}` }, t("finished_entry", { id: game.game_id.slice(0, 8), variant: t(`variant.${game.variant}`), players: game.players })),
    " ",
    game.rated && h("span", { class: "badge rated" }, t("rated")),
    h("span", { class: `badge ${game.won ? "won" : "lost"}` }, t(game.won ? "game_won" : "game_lost")),
    game.abandoned && h("span", { class: "badge abandoned" }, t("game_abandoned")),
    h("span", { class: "updated" }, formatTime(game.finished_at)),
  );
}

/** The header of a profile: the name, a bot's badge, since when. @param {Profile} profile */
export function profileHead(profile) {
  return h(
    "header",
    { class: "profile-head" },
    h("h1", { id: "profile-name" }, profile.name),
    profile.bot && h("span", { class: "badge bot" }, t("bot_badge", { level: t(`bot_level.${profile.bot}`) })),
    profile.created_at && h("p", { class: "since" }, t("player_since", { time: formatTime(profile.created_at) })),
  );
}

/** A leaderboard's row: rank, name (their profile's link), rating (μ and σ in its
 * tooltip), rated games. @param {Ranked} p */
export function rankedRow(p) {
  return h(
    "tr",
    { dataset: { player: p.player_id, rank: p.rank } },
    h("td", { class: "score rank" }, String(p.rank)),
    h("td", {}, playerLink(p.player_id, p.name)),
    h("td", { class: "score ordinal", title: t("mu_sigma", { mu: round1(p.mu), sigma: round1(p.sigma) }) }, String(Math.round(p.ordinal))),
    h("td", { class: "score games" }, String(p.games)),
  );
}

/** A leaderboard's table (empty: its rows come a page at a time). @param {string} ladder @param {HTMLElement} body */
export function leaderboardTable(ladder, body) {
  return h(
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
}

/** A slot's content: the chart of a history, or that there is none yet.
 * @param {HTMLElement} slot @param {readonly HistoryEntry[]} history @param {string} ladder */
export function showHistory(slot, history, ladder) {
  fill(slot, history.length ? historyChart(history, ladder) : h("p", { class: "none" }, t("no_history")));
}
