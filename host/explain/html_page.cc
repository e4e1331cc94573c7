#include "host/explain/html_page.h"

#include <boost/json.hpp>

namespace sh::explain {
namespace {

// The page around the data. Everything the browser needs is here: no link, no font, no
// script from elsewhere, so the page opens offline and from a file.
constexpr const char* kHead = R"page(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>schedhost explain</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d2329; background: #fff; }
h1 { font-size: 1.3em; margin: 0 0 .2em; }
.message { color: #6b3a00; margin: .2em 0 1em; }
.source { color: #555; font-size: .9em; }
#pipeline { display: flex; flex-wrap: wrap; gap: .4em; align-items: stretch; margin: 1em 0; }
#pipeline .stage { border: 1px solid #ccd; border-radius: 6px; padding: .4em .7em; min-width: 8em; }
#pipeline .stage b { display: block; }
#pipeline .arrow { align-self: center; color: #889; }
#pipeline .bad { border-color: #c0392b; background: #fdecea; }
#pipeline .good { border-color: #1e8449; background: #e9f7ef; }
.layout { display: flex; gap: 1.5em; align-items: flex-start; flex-wrap: wrap; }
#heatmap { border-collapse: collapse; }
#heatmap th.plugin { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: normal;
  font-size: .8em; padding: .3em .1em; white-space: nowrap; }
#heatmap th.kind { font-size: .75em; color: #555; }
#heatmap td.cell { width: 1.6em; height: 1.6em; border: 1px solid #fff; text-align: center;
  font-size: .7em; }
#heatmap td.label { padding: 0 .6em; white-space: nowrap; max-width: 28em; overflow: hidden;
  text-overflow: ellipsis; }
#heatmap tr.group { cursor: pointer; }
#heatmap tr.group:hover td.label, #heatmap tr.group.chosen td.label { background: #eef3ff; }
#heatmap tr.selected td.label { font-weight: bold; }
.pass { background: #7dcea0; }
.Unschedulable { background: #f0b27a; }
.UnschedulableAndUnresolvable { background: #c0392b; color: #fff; }
.Error { background: #7d3c98; color: #fff; }
.notrun { background: #eceff1; }
.legend span { display: inline-block; padding: 0 .5em; margin-right: .3em; border-radius: 3px; }
#detail { border: 1px solid #ccd; border-radius: 6px; padding: .6em 1em; min-width: 22em;
  max-width: 40em; }
#detail ul { padding-left: 1.2em; }
#detail a { color: #1f4e9c; cursor: pointer; text-decoration: underline; }
.whatif li { margin: .2em 0; }
</style>
</head>
<body>
<h1 id="title"></h1>
<div class="source" id="source"></div>
<div class="message" id="message"></div>
<div id="pipeline"></div>
<div class="legend">
  <span class="pass">passed</span><span class="Unschedulable">Unschedulable</span><span
  class="UnschedulableAndUnresolvable">UnschedulableAndUnresolvable</span><span
  class="Error">Error</span><span class="notrun">not run</span> scores: darker is higher
</div>
<div class="layout">
  <div>
    <table id="heatmap"><thead></thead><tbody></tbody></table>
  </div>
  <div id="detail"><p>Click a row for its nodes, and a node for its verdicts.</p></div>
</div>
<div id="changes"></div>
<div id="whatifs"></div>
<script type="application/json" id="explanation">)page";

constexpr const char* kTail = R"page(</script>
<script>
"use strict";
(function () {
  const e = JSON.parse(document.getElementById("explanation").textContent);
  const kFeasibleRows = 20;
  const el = (tag, attrs, text) => {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  };
  const reasons = (v) => (v.reasons && v.reasons.length ? v.reasons.join("; ") : v.code);
  const details = new Map((e.details || []).map((d) => [d.name, d]));
  const feasible = new Map((e.feasible || []).map((f) => [f.name, f]));

  document.getElementById("title").textContent = e.pod + ": " + e.result;
  document.getElementById("source").textContent =
    (e.profile ? "profile " + e.profile + (e.generation ? ", generation " + e.generation : "") +
     "; " : "") + e.source;
  document.getElementById("message").textContent = e.message || "";

  // The pipeline, stage by stage.
  const pipeline = document.getElementById("pipeline");
  const rejectedCount = e.rejected.reduce((n, g) => n + g.count, 0);
  const stage = (name, text, cls) => {
    if (pipeline.children.length) pipeline.appendChild(el("span", { class: "arrow" }, "\u2192"));
    const s = el("div", { class: "stage " + (cls || "") });
    s.appendChild(el("b", {}, name));
    s.appendChild(el("span", {}, text));
    pipeline.appendChild(s);
  };
  const preBad = e.preFilter.some((v) => v.code !== "Success" && v.code !== "Skip");
  stage("PreFilter", e.preFilter.length ? e.preFilter.map((v) => v.plugin + ": " + reasons(v))
    .join("; ") : "passed", preBad ? "bad" : "good");
  stage("Filter", e.numAllNodes + " nodes \u2192 " + e.feasibleCount + " feasible",
    e.feasibleCount ? "good" : "bad");
  if (!e.feasibleCount) {
    stage("PostFilter", e.nominatedNode ? "nominated " + e.nominatedNode +
      (e.victims.length ? ", evicting " + e.victims.join(", ") : "") :
      (e.postFilterMessage || "no node nominated"), e.nominatedNode ? "good" : "bad");
  } else {
    stage("Score", e.feasible.length ? "best " + e.feasible[0].name + " (" + e.feasible[0].total +
      ")" : "", "good");
  }
  stage("Selected", e.selected || "none", e.selected ? "good" : "bad");

  // The heat map: a row per group of rejected nodes, then a row per feasible node shown.
  const columns = e.filterPlugins.map((p) => ({ plugin: p, kind: "Filter" }))
    .concat(e.scorePlugins.map((p) => ({ plugin: p, kind: "Score" })));
  const head = document.querySelector("#heatmap thead");
  const kinds = el("tr");
  kinds.appendChild(el("th"));
  if (e.filterPlugins.length) kinds.appendChild(el("th", { class: "kind", colspan: e.filterPlugins.length }, "Filter"));
  if (e.scorePlugins.length) kinds.appendChild(el("th", { class: "kind", colspan: e.scorePlugins.length }, "Score"));
  head.appendChild(kinds);
  const names = el("tr");
  names.appendChild(el("th", {}, "nodes"));
  for (const c of columns) names.appendChild(el("th", { class: "plugin", title: c.kind + " " + c.plugin }, c.plugin));
  head.appendChild(names);
  const body = document.querySelector("#heatmap tbody");
  const maxScore = Math.max(100, ...e.feasible.flatMap((f) => Object.values(f.scores)));

  const detail = document.getElementById("detail");
  const showNode = (name) => {
    detail.replaceChildren(el("h2", {}, name));
    const d = details.get(name);
    const f = feasible.get(name);
    if (name === e.selected) detail.appendChild(el("p", {}, "The selected node."));
    if (d && d.filter.length) {
      detail.appendChild(el("h3", {}, "Filter"));
      const ul = el("ul");
      for (const v of d.filter) ul.appendChild(el("li", {}, v.plugin + ": " + v.code +
        (v.reasons.length ? " \u2014 " + v.reasons.join("; ") : "")));
      detail.appendChild(ul);
    } else if (!f) {
      const g = e.rejected.find((g) => g.nodes.includes(name));
      if (g) detail.appendChild(el("p", {}, (g.plugin || "not filtered") + ": " + g.code +
        " \u2014 " + reasons(g)));
    }
    if (f) {
      detail.appendChild(el("h3", {}, "Score: total " + f.total));
      const ul = el("ul");
      for (const p of e.scorePlugins) if (p in f.scores) ul.appendChild(el("li", {}, p + ": " + f.scores[p]));
      detail.appendChild(ul);
    }
  };
  const showGroup = (g) => {
    detail.replaceChildren(el("h2", {}, g.count + " node" + (g.count === 1 ? "" : "s")));
    detail.appendChild(el("p", {}, (g.plugin || "no plugin") + ": " + g.code + " \u2014 " + reasons(g)));
    const ul = el("ul");
    for (const n of g.nodes) {
      const li = el("li");
      const a = el("a", { class: "node", "data-node": n }, n);
      a.addEventListener("click", () => showNode(n));
      li.appendChild(a);
      ul.appendChild(li);
    }
    if (g.count > g.nodes.length) ul.appendChild(el("li", {}, "and " + (g.count - g.nodes.length) + " more"));
    detail.appendChild(ul);
  };
  const choose = (tr) => {
    for (const r of body.querySelectorAll("tr.chosen")) r.classList.remove("chosen");
    tr.classList.add("chosen");
  };

  const sameVerdict = (a, b) => a.plugin === b.plugin && reasons(a) === reasons(b);
  for (const g of e.rejected) {
    const tr = el("tr", { class: "group rejected", "data-count": g.count });
    // Two groups that differ only by code (Unschedulable, or for good) say which they are.
    const twin = e.rejected.some((o) => o !== g && sameVerdict(o, g));
    tr.appendChild(el("td", { class: "label", title: g.code + ": " + reasons(g) }, g.count + " \u00d7 " +
      (g.plugin || g.code) + ": " + reasons(g) + (twin ? " (" + g.code + ")" : "")));
    const at = e.filterPlugins.indexOf(g.plugin);
    columns.forEach((c, i) => {
      let cls = "notrun";
      let title = c.plugin + ": not run";
      if (c.kind === "Filter" && at >= 0 && i < at) { cls = "pass"; title = c.plugin + ": passed"; }
      if (c.kind === "Filter" && i === at) { cls = g.code; title = c.plugin + ": " + reasons(g); }
      tr.appendChild(el("td", { class: "cell " + cls, title: title }));
    });
    tr.addEventListener("click", () => { choose(tr); showGroup(g); });
    body.appendChild(tr);
  }
  // The best feasible nodes, a row each; the rest in one row.
  const shown = e.feasible.slice(0, kFeasibleRows);
  // The selected node is among them, whatever its rank (ties are broken at random).
  if (e.selected && shown.length && !shown.some((f) => f.name === e.selected)) {
    const chosen = e.feasible.find((f) => f.name === e.selected);
    if (chosen) shown[shown.length - 1] = chosen;
  }
  for (const f of shown) {
    const tr = el("tr", { class: "group feasible" + (f.name === e.selected ? " selected" : ""), "data-node": f.name });
    tr.appendChild(el("td", { class: "label" }, (f.name === e.selected ? "\u2605 " : "") + f.name + " (total " + f.total + ")"));
    for (const c of columns) {
      if (c.kind === "Filter") {
        tr.appendChild(el("td", { class: "cell pass", title: c.plugin + ": passed" }));
        continue;
      }
      const v = f.scores[c.plugin];
      const td = el("td", { class: "cell " + (v === undefined ? "notrun" : "score"),
        title: c.plugin + ": " + (v === undefined ? "not scored (its PreScore skipped it)" : v) },
        v === undefined ? "" : String(v));
      if (v !== undefined) {
        const a = Math.max(0, Math.min(1, v / maxScore));
        td.style.background = "rgba(31, 78, 156, " + (0.08 + 0.92 * a).toFixed(3) + ")";
        td.style.color = a > 0.5 ? "#fff" : "#1d2329";
      }
      tr.appendChild(td);
    }
    tr.addEventListener("click", () => { choose(tr); showNode(f.name); });
    body.appendChild(tr);
  }
  if (e.feasibleCount > shown.length) {
    const tr = el("tr", { class: "group feasible others" });
    tr.appendChild(el("td", { class: "label" }, (e.feasibleCount - shown.length) + " other feasible nodes"));
    for (const c of columns) tr.appendChild(el("td", { class: "cell " + (c.kind === "Filter" ? "pass" : "notrun") }));
    body.appendChild(tr);
  }

  // What changed since the previous attempt, and what would make the pod fit.
  if (e.previousGroups) {
    const now = {};
    for (const g of e.rejected) {
      const key = (g.plugin || g.code) + ": " + g.reasons.join("; ");
      now[key] = (now[key] || 0) + g.count;
    }
    const keys = [...new Set(Object.keys(now).concat(Object.keys(e.previousGroups)))].sort();
    const box = document.getElementById("changes");
    box.appendChild(el("h2", {}, "Since the previous attempt"));
    const ul = el("ul");
    for (const k of keys) {
      const before = e.previousGroups[k] || 0, after = now[k] || 0;
      if (before !== after) ul.appendChild(el("li", {}, k + ": " + before + " \u2192 " + after));
    }
    if (!ul.children.length) ul.appendChild(el("li", {}, "no change in the rejections"));
    box.appendChild(ul);
  }
  if (e.whatIfNote) {
    const box = document.getElementById("whatifs");
    box.appendChild(el("p", { class: "note" }, "What would make it fit: " + e.whatIfNote));
  }
  if (e.whatIfs.length) {
    const box = document.getElementById("whatifs");
    box.appendChild(el("h2", {}, "What would make it fit (never applied)"));
    const ul = el("ul", { class: "whatif" });
    for (const w of e.whatIfs) ul.appendChild(el("li", {}, w.change + ": " + w.nodes + " node" +
      (w.nodes === 1 ? "" : "s") + (w.examples.length ? " (" + w.examples.join(", ") + ")" : "")));
    box.appendChild(ul);
  }
  if (e.selected) showNode(e.selected);
})();
</script>
</body>
</html>
)page";

}  // namespace

std::string htmlPage(const Explanation& e) {
  // Inside <script>, "</" would end the element: every '<' of the data is written \u003c.
  const std::string data = boost::json::serialize(toJson(e));
  std::string out = kHead;
  out.reserve(out.size() + data.size() + 16000);
  for (char c : data) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  out += kTail;
  return out;
}

}  // namespace sh::explain
