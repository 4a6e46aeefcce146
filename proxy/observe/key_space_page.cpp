#include "proxy/observe/key_space_page.hpp"

namespace pgrange::proxy {

namespace {

// The whole page: HTML, CSS, JS and SVG in one document, no external resources. Everything taken
// from /api/ranges reaches the DOM through textContent/setAttribute only, never as markup. The text
// is ASCII (non-ASCII characters as HTML entities or JS \u escapes), so the source encoding and
// the served charset cannot garble it.
constexpr std::string_view kPage = R"PAGE(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pgrange &mdash; key space</title>
<link rel="icon" href="data:,">
<style>
:root { --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --bg: #f6f8fa; --hot: #d1242f; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
.mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
header { position: sticky; top: 0; z-index: 5; background: var(--bg);
  border-bottom: 1px solid var(--line); padding: 10px 20px 8px; display: flex; flex-wrap: wrap;
  align-items: baseline; gap: 4px 18px; }
h1 { font-size: 18px; margin: 0; font-weight: 600; }
#status { font-variant-numeric: tabular-nums; }
#status.error { color: var(--hot); font-weight: 600; }
#meta { color: var(--muted); font-size: 12px; }
#status-note { color: #9a6700; font-size: 12px; }
#legend { display: flex; flex-wrap: wrap; gap: 4px 16px; width: 100%; font-size: 12px; }
.legend-item { display: inline-flex; align-items: center; gap: 5px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; flex: none;
  vertical-align: -1px; }
.swatch.ref { background-image: repeating-linear-gradient(45deg, rgba(255,255,255,.55) 0 2px,
  transparent 2px 5px); }
.swatch.hot { background: #fff; box-shadow: inset 0 0 0 2px var(--hot); }
main { padding: 4px 20px 40px; }
h2 { font-size: 12px; margin: 16px 0 4px; text-transform: uppercase; letter-spacing: .05em;
  color: var(--muted); font-weight: 600; }
.hint { color: var(--muted); font-size: 12px; margin: 0 0 6px; }
.empty { color: var(--muted); font-style: italic; padding: 8px 0; }
.table-group { border-top: 1px solid var(--line); padding: 4px 0 6px; }
.table-name { font-weight: 600; font-size: 13px; padding: 2px 0; overflow: hidden;
  text-overflow: ellipsis; white-space: nowrap; }
.table-name .sub { font-weight: normal; }
.bar { display: grid; grid-template-columns: 220px minmax(0, 1fr); align-items: center;
  column-gap: 12px; padding: 1px 0; }
.bar-label { min-width: 0; padding-left: 12px; }
.bar-label .idx { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.sub { color: var(--muted); font-size: 11px; }
.bar-track { min-width: 0; }
.bar-track svg { display: block; overflow: visible; }
.bar-keys { display: flex; justify-content: space-between; gap: 12px; font-size: 10px;
  color: var(--muted); line-height: 1.2; }
.bar-keys span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
rect.range { cursor: pointer; }
rect.range:hover, rect.range.linked { stroke: #1f2328; stroke-width: 2px; }
.seg-label { font-size: 10px; pointer-events: none; font-variant-numeric: tabular-nums; }
#shards { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr));
  gap: 12px; align-items: start; }
.shard-column { border: 1px solid var(--line); border-radius: 6px; background: var(--bg);
  min-width: 0; overflow: hidden; }
.shard-column.unreachable { border-color: var(--hot); }
.shard-head { padding: 6px 10px; border-bottom: 1px solid var(--line); border-top: 4px solid; }
.shard-title { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; }
.shard-name { font-weight: 600; }
.badge { font-size: 10px; line-height: 14px; padding: 0 5px; border-radius: 7px;
  border: 1px solid currentColor; text-transform: uppercase; letter-spacing: .03em; }
.badge.ok { color: #1a7f37; }
.badge.bad { color: var(--hot); }
.badge.warn { color: #9a6700; }
.badge.hot { color: #fff; background: var(--hot); border-color: var(--hot); }
.shard-ranges { padding: 6px; display: flex; flex-direction: column; gap: 4px;
  max-height: 60vh; overflow-y: auto; }
.shard-range { background: #fff; border: 1px solid var(--line); border-left: 4px solid;
  border-radius: 4px; padding: 2px 6px 3px; min-width: 0; }
.shard-range.ref { border-left-style: double; border-left-width: 6px; }
.shard-range.hot { border-color: var(--hot); box-shadow: 0 0 0 1px var(--hot); }
.shard-range.linked { background: #fff8c5; }
.card-top { display: flex; gap: 6px; align-items: baseline; }
.rid { font-weight: 600; font-variant-numeric: tabular-nums; }
.card-what { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
.card-qps { color: var(--muted); font-variant-numeric: tabular-nums; white-space: nowrap; }
.card-keys { font-size: 11px; color: var(--muted); overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
#tooltip { position: fixed; z-index: 10; pointer-events: none; max-width: 480px;
  background: #1f2328; color: #fff; border-radius: 6px; padding: 7px 10px; font-size: 12px;
  box-shadow: 0 4px 16px rgba(0,0,0,.25); }
#tooltip .tt-title { font-weight: 600; margin-bottom: 3px; display: flex; gap: 8px; }
#tooltip table { border-collapse: collapse; }
#tooltip th { text-align: left; color: #9ea7b3; font-weight: normal; padding: 0 10px 0 0;
  vertical-align: top; white-space: nowrap; }
#tooltip td { padding: 0; font-variant-numeric: tabular-nums; word-break: break-all; }
</style>
</head>
<body>
<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>
<pattern id="pgr-stripes" width="6" height="6" patternUnits="userSpaceOnUse"
  patternTransform="rotate(45)"><rect width="2.5" height="6" fill="#ffffff" fill-opacity="0.55"/>
</pattern></defs></svg>
<header>
<h1>pgrange &mdash; key space</h1>
<span id="status">loading&hellip;</span>
<span id="meta"></span>
<span id="status-note"></span>
<div id="legend"></div>
</header>
<main>
<h2>Ranges by table and index</h2>
<p class="hint">Each bar is one table's primary key or global index, split at its range boundaries
in key order and coloured by owning shard; widths follow row counts once known. Hover a range for
its keys and load.</p>
<div id="bars"></div>
<h2>Shards</h2>
<div id="shards"></div>
</main>
<div id="tooltip" role="tooltip" hidden></div>
)PAGE"
                                   R"PAGE(<script>
"use strict";
(function () {
  // Shard i is drawn in PALETTE[i % PALETTE.length]. No pure red: red marks hot ranges.
  const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f",
    "#ff9da7", "#bab0ac", "#a0cbe8"];
  window.PGRANGE_PALETTE = PALETTE.slice();
  document.documentElement.setAttribute("data-palette", PALETTE.join(" "));

  const REFRESH_MS = 5000;        // plain api/ranges
  const DETAILS_MS = 30000;       // api/ranges?details=1 (rows, size; expensive)
  const TIMEOUT_MS = 10000;
  const DETAILS_TIMEOUT_MS = 25000;
  const MIN_SEG_PX = 6;           // smallest segment when widths follow rows
  const MARK_H = 12;              // room above a bar for hot markers
  const BAR_H = 22;
  const HOT_TOP = 5;
  const HOT_FACTOR = 2;
  const SVGNS = "http://www.w3.org/2000/svg";
  const DOT = " \u00b7 ";

  const state = {
    data: null,            // last good normalized map
    details: new Map(),    // range id -> {rows, size, start, end, at}
    detailsAt: null,       // Date of the last successful details fetch
    lastDetailsTry: -Infinity,
    lastOk: null,          // Date of the last successful fetch
    error: null,
    detailsError: null,
    tipId: null,
    mouse: [0, 0],
  };

  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    if (attrs) for (const k of Object.keys(attrs)) e.setAttribute(k, String(attrs[k]));
    if (text != null) e.textContent = String(text);
    return e;
  }

  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVGNS, tag);
    if (attrs) for (const k of Object.keys(attrs)) e.setAttribute(k, String(attrs[k]));
    if (text != null) e.textContent = String(text);
    return e;
  }

  function splitList(s) {
    if (s == null) return [];
    return String(s).split(",").map((x) => x.trim()).filter((x) => x.length > 0);
  }

  function num(x) {
    if (x == null || x === "") return null;
    const v = Number(x);
    return isFinite(v) ? v : null;
  }

  function pad2(n) { return (n < 10 ? "0" : "") + n; }
  function fmtTime(d) {
    return pad2(d.getHours()) + ":" + pad2(d.getMinutes()) + ":" + pad2(d.getSeconds());
  }
  function fmtInt(n) { return n == null ? "\u2014" : Math.round(n).toLocaleString("en-US"); }
  function fmtQps(q) {
    const v = Number(q) || 0;
    return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  }
  function fmtBytes(n) {
    if (n == null) return "\u2014";
    const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let v = Number(n);
    let i = 0;
    while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    if (i === 0) return v + " B";
    return v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0) + " " + units[i];
  }
  function fmtKey(k) { return k === "" ? "(min)" : k; }
  function fmtEndKey(k) { return k === "" ? "(max)" : k; }
  function errText(e) { return e && e.message ? e.message : String(e); }

  // The end key with the part it shares with the start key (whole /-separated components) elided.
  function shortEnd(start, end) {
    if (start === "" || end === "") return fmtEndKey(end);
    let cut = 0;
    let i = 0;
    for (; i < start.length && i < end.length && start[i] === end[i]; i++) {
      if (start[i] === "/") cut = i;
    }
    if (i === start.length && end[i] === "/") cut = i;
    return cut > 0 ? "\u2026" + end.slice(cut) : end;
  }

  function colorAt(i) { return PALETTE[((i % PALETTE.length) + PALETTE.length) % PALETTE.length]; }

  function textColorFor(hex) {
    const n = parseInt(hex.slice(1), 16);
    const l = 0.299 * (n >> 16) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255);
    return l > 150 ? "#1f2328" : "#ffffff";
  }

  // ---- data -------------------------------------------------------------------------------------

  function normalize(json) {
    if (!json || typeof json !== "object" || !Array.isArray(json.ranges)) {
      throw new Error("malformed api/ranges response (no ranges array)");
    }
    const shards = [];
    const shardIndex = new Map();
    const addShard = (s, listed) => {
      shardIndex.set(s.name, shards.length);
      shards.push({ name: s.name, reachable: s.reachable, draining: !!s.draining, listed });
    };
    for (const s of Array.isArray(json.shards) ? json.shards : []) {
      const o = typeof s === "string" ? { name: s } : s || {};
      const name = o.name == null ? "" : String(o.name);
      if (shardIndex.has(name)) continue;
      addShard({ name, reachable: o.reachable, draining: o.draining }, true);
    }
    const listedShards = shards.length;
    const seen = new Set();
    const ranges = json.ranges.map((r, pos) => {
      r = r || {};
      const shardList = splitList(r.shard);
      // A shard a range names but the shard list lacks still gets a column (and the next colour).
      for (const n of shardList) if (!shardIndex.has(n)) addShard({ name: n }, false);
      const tables = splitList(r.table);
      const indexes = splitList(r.index);
      const id = r.range_id == null ? "?" + pos : String(r.range_id);
      const start = r.start_key == null ? "" : String(r.start_key);
      const end = r.end_key == null ? "" : String(r.end_key);
      const rows = num(r.rows);
      const size = num(r.size_bytes);
      if (rows != null || size != null) state.details.set(id, { rows, size, start, end });
      // Details count only while the range still spans the keys they were measured for.
      const det = state.details.get(id);
      const fresh = det && det.start === start && det.end === end;
      seen.add(id);
      return {
        id, pos, tables, indexes, start, end,
        table: tables[0] || "",
        index: tables.length ? indexes[0] || "" : "",
        shardAttr: r.shard == null ? "" : String(r.shard),
        shards: shardList,
        isRef: shardList.length > 1,
        qps: num(r.qps) || 0,
        readQps: num(r.read_qps),
        writeQps: num(r.write_qps),
        rows: fresh ? det.rows : null,
        size: fresh ? det.size : null,
        hot: false,
      };
    });
    for (const id of Array.from(state.details.keys())) if (!seen.has(id)) state.details.delete(id);

    // Hot rule: qps > 0, at least HOT_FACTOR x the mean qps of all ranges, and among the HOT_TOP
    // busiest such ranges.
    const mean = ranges.length ? ranges.reduce((a, r) => a + r.qps, 0) / ranges.length : 0;
    ranges.filter((r) => r.qps > 0 && r.qps >= HOT_FACTOR * mean)
      .sort((a, b) => b.qps - a.qps).slice(0, HOT_TOP).forEach((r) => { r.hot = true; });

    // Group by (first) table, then index, both in order of first appearance in key order. Ranges of
    // no table (gaps, the end of the key space) form one group, drawn last.
    const groups = [];
    const byTable = new Map();
    for (const r of ranges) {
      let g = byTable.get(r.table);
      if (!g) {
        g = { table: r.table, bars: [], byIndex: new Map() };
        byTable.set(r.table, g);
        groups.push(g);
      }
      let b = g.byIndex.get(r.index);
      if (!b) {
        b = { index: r.index, ranges: [] };
        g.byIndex.set(r.index, b);
        g.bars.push(b);
      }
      b.ranges.push(r);
    }
    const gaps = groups.findIndex((g) => g.table === "");
    if (gaps >= 0) groups.push(groups.splice(gaps, 1)[0]);

    return {
      version: json.version == null ? "?" : String(json.version),
      generatedAt: json.generated_at == null ? "" : String(json.generated_at),
      shards, shardIndex, listedShards, ranges, groups, mean,
      byId: new Map(ranges.map((r) => [r.id, r])),
    };
  }

  function shardColor(d, name) {
    const i = d.shardIndex.get(name);
    return i == null ? "#8c959f" : colorAt(i);
  }

  // ---- drawing ----------------------------------------------------------------------------------

  // Segment widths: proportional to rows (with a floor) when every range of the bar has a row
  // count, else equal.
  function segWidths(rs, W) {
    const n = rs.length;
    const known = rs.every((r) => r.rows != null);
    const total = known ? rs.reduce((a, r) => a + Math.max(0, r.rows), 0) : 0;
    const minW = Math.min(MIN_SEG_PX, W / n);
    if (!known || total <= 0 || n * minW >= W) return { byRows: false, ws: rs.map(() => W / n) };
    const spare = W - n * minW;
    return { byRows: true, ws: rs.map((r) => minW + (spare * Math.max(0, r.rows)) / total) };
  }

  const fx = (v) => Math.round(v * 100) / 100;

  function drawBar(d, track, bar, W, sub) {
    const rs = bar.ranges;
    const { byRows, ws } = segWidths(rs, W);
    const H = MARK_H + BAR_H;
    const s = svgEl("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H });
    const hot = [];
    let x = 0;
    rs.forEach((r, i) => {
      const w = ws[i];
      const color = shardColor(d, r.shards[0]);
      s.appendChild(svgEl("rect", {
        class: r.hot ? "range hot" : "range", "data-range-id": r.id, "data-shard": r.shardAttr,
        x: fx(x), y: MARK_H, width: fx(Math.max(w, 0.5)), height: BAR_H, fill: color,
        stroke: "#ffffff", "stroke-width": w >= 3 ? 1 : 0,
      }));
      if (r.isRef) {
        s.appendChild(svgEl("rect", {
          class: "ref-overlay", x: fx(x), y: MARK_H, width: fx(Math.max(w, 0.5)), height: BAR_H,
          fill: "url(#pgr-stripes)", "pointer-events": "none",
        }));
      }
      const label = "r" + r.id;
      if (w >= label.length * 6.5 + 8) {
        s.appendChild(svgEl("text", {
          class: "seg-label", x: fx(x + w / 2), y: MARK_H + BAR_H / 2 + 3.5,
          "text-anchor": "middle", fill: textColorFor(color),
        }, label));
      }
      if (r.hot) hot.push([x, w]);
      x += w;
    });
    for (const [hx, hw] of hot) {
      s.appendChild(svgEl("rect", {
        class: "hot-outline", x: fx(hx + 1.5), y: MARK_H + 1.5, width: fx(Math.max(hw - 3, 1)),
        height: BAR_H - 3, fill: "none", stroke: "#d1242f", "stroke-width": 3,
        "pointer-events": "none",
      }));
      const cx = hx + hw / 2;
      s.appendChild(svgEl("path", {
        class: "hot-marker", d: "M" + fx(cx - 5) + " 1H" + fx(cx + 5) + "L" + fx(cx) + " " +
          (MARK_H - 2) + "Z", fill: "#d1242f", "pointer-events": "none",
      }));
    }
    const keys = el("div", { class: "bar-keys mono" });
    keys.appendChild(el("span", null, fmtKey(rs[0].start)));
    keys.appendChild(el("span", null, fmtEndKey(rs[rs.length - 1].end)));
    track.replaceChildren(s, keys);
    sub.textContent = rs.length + (rs.length === 1 ? " range" : " ranges") + DOT +
      (byRows ? "width \u221d rows" : "equal widths");
  }

  function renderBars(d) {
    const host = $("bars");
    if (!d.ranges.length) {
      host.replaceChildren(el("div", { class: "empty" }, "no ranges"));
      return;
    }
    const frag = document.createDocumentFragment();
    const todo = [];
    for (const g of d.groups) {
      const ge = el("div", { class: "table-group", "data-table": g.table });
      const name = el("div", { class: "table-name" }, g.table === "" ? "(no table)" : g.table);
      if (g.table === "") {
        name.appendChild(el("span", { class: "sub" }, "  key space between and after tables"));
      }
      ge.appendChild(name);
      for (const b of g.bars) {
        const be = el("div", { class: "bar", "data-table": g.table, "data-index": b.index });
        const label = el("div", { class: "bar-label" });
        const idxName = g.table === "" ? "unassigned" : b.index === "" ? "(no index)" : b.index;
        label.appendChild(el("div", { class: "idx", title: idxName }, idxName));
        const sub = el("div", { class: "sub" });
        label.appendChild(sub);
        const track = el("div", { class: "bar-track" });
        be.appendChild(label);
        be.appendChild(track);
        ge.appendChild(be);
        todo.push([track, b, sub]);
      }
      frag.appendChild(ge);
    }
    host.replaceChildren(frag);
    // All tracks share one width (grid column); measure it once the new rows are in the document.
    const W = Math.max(120, Math.floor(todo[0][0].getBoundingClientRect().width));
    for (const [track, b, sub] of todo) drawBar(d, track, b, W, sub);
  }

  function stateBadges(sh) {
    const out = [];
    if (sh.reachable === true) out.push(el("span", { class: "badge ok" }, "reachable"));
    else if (sh.reachable === false) out.push(el("span", { class: "badge bad" }, "unreachable"));
    else out.push(el("span", { class: "badge warn" }, "state unknown"));
    if (sh.draining) out.push(el("span", { class: "badge warn" }, "draining"));
    if (!sh.listed) out.push(el("span", { class: "badge warn" }, "not in shard list"));
    return out;
  }

  function whatOf(r) {
    if (r.table === "") return "(no table)";
    let s = r.table + " / " + (r.index || "(no index)");
    if (r.tables.length > 1) s += " +" + (r.tables.length - 1);
    return s;
  }

  function renderShards(d) {
    const host = $("shards");
    const scroll = new Map();
    for (const c of host.querySelectorAll(".shard-column")) {
      const list = c.querySelector(".shard-ranges");
      if (list) scroll.set(c.getAttribute("data-shard"), list.scrollTop);
    }
    const mine = new Map(d.shards.map((s) => [s.name, []]));
    for (const r of d.ranges) for (const n of new Set(r.shards)) mine.get(n).push(r);
    const frag = document.createDocumentFragment();
    d.shards.forEach((sh, i) => {
      const color = colorAt(i);
      const rs = mine.get(sh.name);
      const col = el("section",
        { class: "shard-column", "data-shard": sh.name, "data-color": color });
      if (sh.reachable === false) col.classList.add("unreachable");
      const head = el("div", { class: "shard-head" });
      head.style.borderTopColor = color;
      const title = el("div", { class: "shard-title" });
      const sw = el("span", { class: "swatch" });
      sw.style.backgroundColor = color;
      title.appendChild(sw);
      title.appendChild(el("span", { class: "shard-name" }, sh.name));
      for (const b of stateBadges(sh)) title.appendChild(b);
      head.appendChild(title);
      const qps = rs.reduce((a, r) => a + r.qps, 0);
      const hot = rs.filter((r) => r.hot).length;
      head.appendChild(el("div", { class: "sub" }, rs.length +
        (rs.length === 1 ? " range" : " ranges") + DOT + fmtQps(qps) + " qps" +
        (hot ? DOT + hot + " hot" : "")));
      col.appendChild(head);
      const list = el("div", { class: "shard-ranges" });
      for (const r of rs) {
        const card = el("div", { class: "shard-range", "data-range-id": r.id });
        if (r.hot) card.classList.add("hot");
        if (r.isRef) card.classList.add("ref");
        card.style.borderLeftColor = color;
        const top = el("div", { class: "card-top" });
        top.appendChild(el("span", { class: "rid" }, "r" + r.id));
        top.appendChild(el("span", { class: "card-what", title: r.tables.join(", ") }, whatOf(r)));
        if (r.isRef) top.appendChild(el("span", { class: "badge warn" }, "ref"));
        if (r.hot) top.appendChild(el("span", { class: "badge hot" }, "hot"));
        top.appendChild(el("span", { class: "card-qps" }, fmtQps(r.qps) + " qps"));
        card.appendChild(top);
        const span = fmtKey(r.start) + " \u2192 " + shortEnd(r.start, r.end);
        card.appendChild(el("div", { class: "card-keys mono", title: fmtKey(r.start) + " \u2192 " +
          fmtEndKey(r.end) }, span));
        list.appendChild(card);
      }
      if (!rs.length) list.appendChild(el("div", { class: "empty" }, "no ranges"));
      col.appendChild(list);
      frag.appendChild(col);
    });
    host.replaceChildren(frag);
    for (const c of host.querySelectorAll(".shard-column")) {
      const top = scroll.get(c.getAttribute("data-shard"));
      if (top) c.querySelector(".shard-ranges").scrollTop = top;
    }
  }

  function renderLegend(d) {
    const host = $("legend");
    const frag = document.createDocumentFragment();
    d.shards.forEach((sh, i) => {
      const item = el("span", { class: "legend-item" });
      const sw = el("span", { class: "swatch" });
      sw.style.backgroundColor = colorAt(i);
      item.appendChild(sw);
      item.appendChild(el("span", null, sh.name));
      frag.appendChild(item);
    });
    const ref = el("span", { class: "legend-item" });
    const rsw = el("span", { class: "swatch ref" });
    rsw.style.backgroundColor = d.shards.length ? colorAt(0) : "#8c959f";
    ref.appendChild(rsw);
    ref.appendChild(el("span", null, "reference table (every shard; first shard's colour)"));
    frag.appendChild(ref);
    const hot = el("span", { class: "legend-item" });
    hot.appendChild(el("span", { class: "swatch hot" }));
    hot.appendChild(el("span", null, "hot: top " + HOT_TOP + " by qps, \u2265 " + HOT_FACTOR +
      "\u00d7 mean (" + fmtQps(d.mean) + ")"));
    frag.appendChild(hot);
    host.replaceChildren(frag);
  }

  function renderStatus() {
    const st = $("status");
    const d = state.data;
    let text;
    if (state.error) {
      text = "fetch failed: " + state.error;
      if (d) text += DOT + "showing version " + d.version + " from " + fmtTime(state.lastOk);
      st.classList.add("error");
    } else if (d) {
      text = "version " + d.version + DOT + d.ranges.length + " ranges" + DOT + d.listedShards +
        " shards" + DOT + "updated " + fmtTime(state.lastOk);
      st.classList.remove("error");
    } else {
      text = "loading\u2026";
    }
    st.textContent = text;
    const meta = [];
    if (d && d.generatedAt) meta.push("map generated " + d.generatedAt);
    if (state.detailsAt) meta.push("rows and sizes as of " + fmtTime(state.detailsAt));
    $("meta").textContent = meta.join(DOT);
    $("status-note").textContent =
      state.detailsError ? "details failed: " + state.detailsError : "";
  }

  // ---- tooltip ----------------------------------------------------------------------------------

  function tipRow(table, label, value, mono) {
    const tr = el("tr");
    tr.appendChild(el("th", null, label));
    tr.appendChild(el("td", mono ? { class: "mono" } : null, value));
    table.appendChild(tr);
  }

  function fillTip(r) {
    const tip = $("tooltip");
    const title = el("div", { class: "tt-title" });
    title.appendChild(el("span", null, "range " + r.id));
    if (r.hot) title.appendChild(el("span", { class: "badge hot" }, "hot"));
    if (r.isRef) title.appendChild(el("span", { class: "badge warn" }, "reference"));
    const t = el("table");
    tipRow(t, r.tables.length > 1 ? "tables" : "table", r.table === "" ? "(no table)" :
      r.tables.join(", "));
    if (r.table !== "") tipRow(t, r.indexes.length > 1 ? "indexes" : "index", r.indexes.join(", "));
    tipRow(t, r.isRef ? "shards" : "shard", r.shards.join(", ") || "(none)");
    tipRow(t, "start", fmtKey(r.start), true);
    tipRow(t, "end", fmtEndKey(r.end), true);
    tipRow(t, "rows", r.rows == null ? "unknown yet" : fmtInt(r.rows));
    tipRow(t, "size", r.size == null ? "unknown yet" : fmtBytes(r.size));
    let q = fmtQps(r.qps);
    if (r.readQps != null || r.writeQps != null) {
      q += " (read " + fmtQps(r.readQps) + " / write " + fmtQps(r.writeQps) + ")";
    }
    tipRow(t, "qps", q);
    tip.replaceChildren(title, t);
  }

  function placeTip() {
    const tip = $("tooltip");
    const [mx, my] = state.mouse;
    const w = tip.offsetWidth;
    const h = tip.offsetHeight;
    let x = mx + 14;
    let y = my + 16;
    if (x + w > window.innerWidth - 4) x = Math.max(4, mx - w - 14);
    if (y + h > window.innerHeight - 4) y = Math.max(4, my - h - 12);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }

  function setLinked(id, on) {
    if (id == null) return;
    for (const e of document.querySelectorAll("[data-range-id]")) {
      if (e.getAttribute("data-range-id") === id) e.classList.toggle("linked", on);
    }
  }

  function showTip(id) {
    const r = id == null || !state.data ? null : state.data.byId.get(id);
    if (state.tipId !== id) setLinked(state.tipId, false);
    if (!r) {
      state.tipId = null;
      $("tooltip").hidden = true;
      return;
    }
    state.tipId = id;
    setLinked(id, true);
    fillTip(r);
    $("tooltip").hidden = false;
    placeTip();
  }

  document.addEventListener("mouseover", (ev) => {
    const t = ev.target && ev.target.closest ? ev.target.closest("[data-range-id]") : null;
    const id = t ? t.getAttribute("data-range-id") : null;
    if (id !== state.tipId) showTip(id);
  });
  document.addEventListener("mousemove", (ev) => {
    state.mouse = [ev.clientX, ev.clientY];
    if (state.tipId != null) placeTip();
  });
  document.documentElement.addEventListener("mouseleave", () => showTip(null));

  // ---- refresh ----------------------------------------------------------------------------------

  function render() {
    const d = state.data;
    if (!d) return;
    renderLegend(d);
    renderBars(d);
    renderShards(d);
    const id = state.tipId;
    state.tipId = null;
    showTip(id);  // the hovered range's new numbers, or hide it when the range is gone
  }

  async function fetchJson(url, timeoutMs) {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), timeoutMs);
    try {
      let resp;
      try {
        resp = await fetch(url, { cache: "no-store", signal: ctl.signal,
          headers: { Accept: "application/json" } });
      } catch (e) {
        throw new Error(ctl.signal.aborted ? "timed out fetching " + url
                                           : errText(e) + " (" + url + ")");
      }
      if (!resp.ok) {
        throw new Error("HTTP " + resp.status + " " + resp.statusText + " (" + url + ")");
      }
      try {
        return await resp.json();
      } catch (e) {
        throw new Error("bad JSON from " + url + ": " + errText(e));
      }
    } finally {
      clearTimeout(timer);
    }
  }

  async function refresh() {
    try {
      let json = null;
      if (Date.now() - state.lastDetailsTry >= DETAILS_MS) {
        state.lastDetailsTry = Date.now();
        try {
          json = await fetchJson("api/ranges?details=1", DETAILS_TIMEOUT_MS);
          state.detailsError = null;
          state.detailsAt = new Date();
        } catch (e) {
          state.detailsError = errText(e);  // fall back to the cheap fetch below
        }
      }
      if (!json) json = await fetchJson("api/ranges", TIMEOUT_MS);
      const d = normalize(json);
      const prev = state.data;
      state.data = d;
      try {
        render();
      } catch (e) {
        state.data = prev;  // keep showing the last good drawing
        try { render(); } catch (e2) { /* reported below */ }
        throw new Error("drawing failed: " + errText(e));
      }
      state.lastOk = new Date();
      state.error = null;
      document.body.setAttribute("data-version", d.version);
      document.body.setAttribute("data-loaded", "1");
    } catch (e) {
      state.error = errText(e);
    }
    renderStatus();
  }

  async function loop() {
    await refresh();
    setTimeout(loop, REFRESH_MS);
  }

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      try { render(); } catch (e) { /* the next refresh reports it */ }
    }, 150);
  });

  loop();
})();
</script>
</body>
</html>
)PAGE";

}  // namespace

std::string_view key_space_page() {
  return kPage;
}

}  // namespace pgrange::proxy
