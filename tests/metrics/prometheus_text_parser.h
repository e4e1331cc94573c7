// A strict parser of the Prometheus text exposition format 0.0.4, for tests: it reads a whole
// exposition into families and samples and throws on any departure from the grammar
// (upstream prometheus/common expfmt: TextParser), so a test can check what a scrape would see.
//
//   # HELP <metric_name> <escaped text>
//   # TYPE <metric_name> counter|gauge|histogram|summary|untyped
//   <metric_name>[{<label_name>="<escaped value>",...}] <value> [<timestamp>]
//
// A sample must follow the HELP or TYPE of its family (histogram samples carry _bucket, _sum
// or _count after the family's name); a family is declared once and its samples are
// contiguous.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sh::metrics::testing {

struct ParsedSample {
  std::string name;  // with its suffix (_bucket, _sum, _count)
  std::vector<std::pair<std::string, std::string>> labels;  // unescaped, in written order
  double value = 0;
  std::string valueText;  // as written

  // The value of label `key`; "" when absent.
  std::string label(std::string_view key) const;
};

struct ParsedFamily {
  std::string name;
  std::string help;  // unescaped
  std::string type;  // "" when no TYPE line
  bool hasHelp = false;
  std::vector<ParsedSample> samples;
};

// Throws std::runtime_error naming the line on any grammar error.
std::vector<ParsedFamily> parsePrometheusText(std::string_view text);

// The first sample named `name` (with its suffix) whose labels include `labels`; null if none.
const ParsedSample* findSample(const std::vector<ParsedFamily>& families, std::string_view name,
                               const std::vector<std::pair<std::string, std::string>>& labels);

}  // namespace sh::metrics::testing
