// The picture of an Explanation: one self-contained HTML page (no network, no external
// assets; the data, styles and script are inline) with
//   - the pipeline as the pod went through it (PreFilter, Filter, PostFilter, Score, the
//     selected node),
//   - a heat map of node groups (rows) by plugins (columns: the Filter plugins, then the Score
//     plugins): a Filter verdict is a colour (passed, rejected, rejected for good, error, not
//     run), a score an intensity; rejected nodes are one row per verdict, so 5,000 nodes stay
//     a handful of rows, the best 20 feasible nodes one row each, the other feasible nodes one,
//   - the detail of a group or a node on click: every Filter plugin's verdict on it, its scores.
// The page's elements the browser test reads: table#heatmap (th.plugin per column, tr.group per
// row), #detail, #pipeline.
#pragma once

#include <string>

#include "host/explain/explanation.h"

namespace sh::explain {

std::string htmlPage(const Explanation& e);

}  // namespace sh::explain
