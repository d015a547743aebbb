// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::write_timeline_html — a timeline a person opens in a browser, with no server and nothing
/// fetched: one HTML file holding a trace-event JSON document (aicb/io/trace_events.hpp, or measured
/// times in the same form) and a small renderer for it. Tracks are the trace's processes (pipeline
/// stages or ranks, stacked in their sort order) and threads (compute, collectives, data parallel,
/// transfers, waiting); bubbles are the gaps and the `waiting` track; hovering an interval shows its
/// operation, phase, micro batch, layer, bytes, group or peer. Wheel or +/− zoom, drag pans, 0 resets.
///
/// ```cpp
/// aicb::atomic_file out("timeline.html");
/// aicb::write_timeline_html([&](std::string_view s) { out.write(s); }, "llama3-8b on 64 H100",
///                           [&](const auto& sink) { aicb::write_trace_events(sink, job, gpu, cluster); });
/// out.commit();
/// ```
///
/// The page is one renderer for any trace-event document: `produce(sink)` writes the document through
/// `sink`, which escapes it for the page (`<` as `\u003c`, so no text of the data can close its
/// script element). The page reports what it drew in `<body data-tracks data-events data-errors>`
/// (the tests read these from a headless browser).

#include <aicb/config.hpp>

#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

namespace detail {

inline constexpr std::string_view timeline_page_head = R"aicb(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="generator" content="aicb">
<title>)aicb";

inline constexpr std::string_view timeline_page_style = R"aicb(</title>
<style>
body{font:13px system-ui,sans-serif;margin:0;color:#222;background:#fff}
header{padding:8px 12px;border-bottom:1px solid #ddd}
header h1{font-size:15px;margin:0 0 4px}
#summary{color:#555}
#legend span{display:inline-block;margin-right:12px}
#legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
#view{position:relative;overflow:auto}
canvas{display:block}
#tip{position:fixed;pointer-events:none;background:#fffff0;border:1px solid #999;padding:4px 6px;
white-space:pre;font:12px ui-monospace,monospace;display:none;z-index:2}
button{font:12px system-ui;margin-left:4px}
</style></head>
<body data-tracks="0" data-events="0" data-errors="0">
<header><h1 id="title"></h1><div id="summary"></div>
<div id="legend"></div>
<div>zoom <button id="zin">+</button><button id="zout">&minus;</button><button id="zreset">fit</button>
<span id="range"></span></div></header>
<div id="view"><canvas id="canvas"></canvas></div><div id="tip"></div>
<script id="trace" type="application/json">)aicb";

inline constexpr std::string_view timeline_page_script = R"aicb(</script>
<script>
"use strict";
(function () {
  const body = document.body;
  let errors = 0;
  window.addEventListener("error", function () { body.dataset.errors = String(++errors); });
  const trace = JSON.parse(document.getElementById("trace").textContent);
  const events = Array.isArray(trace) ? trace : (trace.traceEvents || []);
  const about = trace.otherData || {};
  document.getElementById("title").textContent = document.title;
  const facts = [];
  if (about.iteration_s !== undefined) facts.push("iteration " + (+about.iteration_s).toPrecision(4) + " s");
  if (about.mfu !== undefined) facts.push("MFU " + (100 * about.mfu).toFixed(1) + "%");
  if (about.gpu) facts.push(about.gpu);
  if (about.cluster) facts.push(about.cluster);
  if (about.compute) facts.push(String(about.compute).split(" (")[0]);  // the model, not its parameters
  if (about.source) facts.push(about.source);
  document.getElementById("summary").textContent = facts.join(" \u00b7 ");

  // Tracks: one per (process, thread) that has intervals, processes in their sort order.
  const processName = {}, processSort = {}, threadName = {};
  const tracks = new Map();
  let start = Infinity, end = -Infinity, count = 0;
  for (const e of events) {
    if (e.ph === "M") {
      if (e.name === "process_name") processName[e.pid] = e.args.name;
      if (e.name === "process_sort_index") processSort[e.pid] = e.args.sort_index;
      if (e.name === "thread_name") threadName[e.pid + "/" + e.tid] = e.args.name;
      continue;
    }
    if (e.ph !== "X") continue;
    const key = e.pid + "/" + e.tid;
    if (!tracks.has(key)) tracks.set(key, {pid: e.pid, tid: e.tid, items: []});
    tracks.get(key).items.push(e);
    start = Math.min(start, e.ts);
    end = Math.max(end, e.ts + (e.dur || 0));
    ++count;
  }
  const order = [...tracks.values()].sort(function (a, b) {
    const sa = processSort[a.pid] !== undefined ? processSort[a.pid] : a.pid;
    const sb = processSort[b.pid] !== undefined ? processSort[b.pid] : b.pid;
    return sa - sb || a.pid - b.pid || a.tid - b.tid;
  });
  for (const t of order) {
    t.items.sort(function (a, b) { return a.ts - b.ts; });
    t.label = (processName[t.pid] || ("process " + t.pid)) + " \u2014 " + (threadName[t.pid + "/" + t.tid] || ("thread " + t.tid));
  }
  if (!isFinite(start)) { start = 0; end = 1; }
  if (end <= start) end = start + 1;

  // Colours: compute by phase, communication by stream.
  const colours = {
    "forward": "#4e79a7", "backward": "#59a14f", "recompute": "#f28e2b", "finalize": "#b07aa1",
    "collectives": "#e15759", "data parallel": "#76b7b2", "transfers": "#9c755f", "waiting": "#d3d3d3"
  };
  function colour(e) {
    if (e.cat === "compute") return colours[(e.args && e.args.phase) || "forward"] || "#4e79a7";
    return colours[e.cat] || "#888";
  }
  const legend = document.getElementById("legend");
  for (const name of Object.keys(colours)) {
    const span = document.createElement("span");
    const swatch = document.createElement("i");
    swatch.style.background = colours[name];
    span.appendChild(swatch);
    span.appendChild(document.createTextNode(name + (["forward", "backward", "recompute", "finalize"].includes(name) ? " compute" : "")));
    legend.appendChild(span);
  }

  const canvas = document.getElementById("canvas"), view = document.getElementById("view");
  const tip = document.getElementById("tip"), range = document.getElementById("range");
  const row = 18, gap = 2, labelWidth = 260, axis = 22;
  let t0 = start, t1 = end;
  function width() { return Math.max(400, view.clientWidth || window.innerWidth || 1200); }
  function x(t, w) { return labelWidth + (t - t0) / (t1 - t0) * (w - labelWidth - 8); }
  function units(us) {
    if (us >= 1e6) return (us / 1e6).toPrecision(4) + " s";
    if (us >= 1e3) return (us / 1e3).toPrecision(4) + " ms";
    if (us === 0) return "0";
    return us.toPrecision(4) + " \u00b5s";
  }
  function draw() {
    const w = width(), h = axis + order.length * (row + gap) + 4;
    const ratio = window.devicePixelRatio || 1;
    canvas.width = w * ratio; canvas.height = h * ratio;
    canvas.style.width = w + "px"; canvas.style.height = h + "px";
    const g = canvas.getContext("2d");
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, w, h);
    g.font = "11px system-ui, sans-serif";
    // Time axis.
    g.fillStyle = "#555"; g.strokeStyle = "#eee";
    const ticks = 8;
    for (let i = 0; i <= ticks; ++i) {
      const t = t0 + (t1 - t0) * i / ticks, px = x(t, w);
      g.beginPath(); g.moveTo(px, axis - 4); g.lineTo(px, h); g.stroke();
      if (px + 2 < w - 130 || i === ticks) g.fillText(units(t - start), Math.min(px + 2, w - 60), 12);
    }
    let previousPid = null;
    order.forEach(function (t, i) {
      const y = axis + i * (row + gap);
      if (t.pid !== previousPid) {  // a line between processes: stages or ranks stacked
        g.strokeStyle = "#999"; g.beginPath(); g.moveTo(0, y - 1); g.lineTo(w, y - 1); g.stroke();
        previousPid = t.pid;
      }
      g.fillStyle = "#333";
      g.fillText(t.label.length > 44 ? t.label.slice(0, 43) + "\u2026" : t.label, 4, y + row - 5);
      g.save(); g.beginPath(); g.rect(labelWidth, y, w - labelWidth, row); g.clip();
      let lastPixel = -1;
      for (const e of t.items) {
        if (e.ts + (e.dur || 0) < t0 || e.ts > t1) continue;
        const a = x(e.ts, w), b = x(e.ts + (e.dur || 0), w);
        if (b < lastPixel + 0.5 && b - a < 0.5) continue;  // many sub-pixel intervals: one mark
        g.fillStyle = colour(e);
        g.fillRect(a, y, Math.max(b - a, 0.5), row);
        lastPixel = b;
      }
      g.restore();
    });
    range.textContent = units(t0 - start) + " \u2013 " + units(t1 - start) + " of " + units(end - start);
  }
  function find(px, py) {
    const i = Math.floor((py - axis) / (row + gap));
    if (i < 0 || i >= order.length || px < labelWidth) return null;
    const w = width(), t = t0 + (px - labelWidth) / (w - labelWidth - 8) * (t1 - t0);
    const slack = (t1 - t0) / (w - labelWidth) * 2;
    const items = order[i].items;
    let lo = 0, hi = items.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (items[m].ts <= t) lo = m + 1; else hi = m; }
    for (let k = Math.max(0, lo - 8); k < Math.min(items.length, lo + 2); ++k) {
      const e = items[k];
      if (t >= e.ts - slack && t <= e.ts + (e.dur || 0) + slack) return {track: order[i], event: e};
    }
    return null;
  }
  canvas.addEventListener("mousemove", function (m) {
    const r = canvas.getBoundingClientRect();
    if (dragging) {
      const dt = (m.clientX - dragging) / (width() - labelWidth) * (t1 - t0);
      t0 -= dt; t1 -= dt; dragging = m.clientX; draw(); return;
    }
    const hit = find(m.clientX - r.left, m.clientY - r.top);
    if (!hit) { tip.style.display = "none"; return; }
    const e = hit.event, lines = [e.name, hit.track.label, units(e.dur || 0) + " at " + units(e.ts - start)];
    for (const [k, v] of Object.entries(e.args || {}))
      lines.push(k + ": " + (k === "bytes" ? Number(v).toLocaleString("en") : v));
    tip.textContent = lines.join("\n");
    tip.style.display = "block";
    tip.style.left = Math.min(m.clientX + 12, window.innerWidth - 320) + "px";
    tip.style.top = (m.clientY + 12) + "px";
  });
  canvas.addEventListener("mouseleave", function () { tip.style.display = "none"; dragging = 0; });
  let dragging = 0;
  canvas.addEventListener("mousedown", function (m) { dragging = m.clientX; });
  window.addEventListener("mouseup", function () { dragging = 0; });
  function zoom(factor, at) {
    const centre = at === undefined ? (t0 + t1) / 2 : at;
    t0 = centre - (centre - t0) * factor; t1 = centre + (t1 - centre) * factor;
    draw();
  }
  canvas.addEventListener("wheel", function (m) {
    m.preventDefault();
    const r = canvas.getBoundingClientRect(), w = width();
    const at = t0 + (m.clientX - r.left - labelWidth) / (w - labelWidth - 8) * (t1 - t0);
    zoom(m.deltaY < 0 ? 0.8 : 1.25, at);
  }, {passive: false});
  document.getElementById("zin").onclick = function () { zoom(0.5); };
  document.getElementById("zout").onclick = function () { zoom(2); };
  document.getElementById("zreset").onclick = function () { t0 = start; t1 = end; draw(); };
  window.addEventListener("keydown", function (k) {
    if (k.key === "+" || k.key === "=") zoom(0.5);
    if (k.key === "-") zoom(2);
    if (k.key === "0") { t0 = start; t1 = end; draw(); }
  });
  window.addEventListener("resize", draw);
  draw();
  body.dataset.tracks = String(order.length);
  body.dataset.processes = String(new Set(order.map(function (t) { return t.pid; })).size);
  body.dataset.events = String(count);
})();
</script>
</body></html>
)aicb";

// Escapes what would end the script element the data sits in, keeping it JSON ("<" only appears in
// JSON strings, where \u003c means the same).
template <class Write>
void write_escaped_for_script(Write& write, std::string_view text) {
  std::size_t from = 0;
  for (std::size_t i = text.find('<'); i != std::string_view::npos; i = text.find('<', from)) {
    write(text.substr(from, i - from));
    write(std::string_view("\\u003c"));
    from = i + 1;
  }
  write(text.substr(from));
}

inline std::string escape_html_text(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace detail

/// Writes the page through `write(std::string_view)`: `title`, then the trace-event document that
/// `produce(sink)` writes through `sink` (see the file comment), then the renderer.
template <class Write, class Produce>
void write_timeline_html(Write&& write, std::string_view title, Produce&& produce) {
  write(detail::timeline_page_head);
  write(std::string_view(detail::escape_html_text(title)));
  write(detail::timeline_page_style);
  const auto sink = [&](std::string_view text) { detail::write_escaped_for_script(write, text); };
  produce(sink);
  write(detail::timeline_page_script);
}

AICB_END_NAMESPACE
