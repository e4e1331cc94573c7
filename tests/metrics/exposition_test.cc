// The text exposition format: numbers as the Go client writes them, escaping, and whole small
// expositions compared byte for byte.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "host/metrics/registry.h"

namespace sh::metrics::exposition_test {
namespace {

TEST(MetricsExpositionTest, NumbersAsTheGoClientWritesThem) {
  // Go: strconv.FormatFloat(v, 'g', -1, 64), with 0, 1, -1 and the infinities special-cased.
  EXPECT_EQ(formatValue(0), "0");
  EXPECT_EQ(formatValue(1), "1");
  EXPECT_EQ(formatValue(-1), "-1");
  EXPECT_EQ(formatValue(0.001), "0.001");
  EXPECT_EQ(formatValue(0.0001), "0.0001");    // exponent -4: still plain
  EXPECT_EQ(formatValue(1.5e-05), "1.5e-05");  // exponent -5: %e, two exponent digits
  // 1e-05 * 1.5 is not the double nearest 1.5e-05, and the shortest round trip shows it (as
  // kube-scheduler's own le="1.5000000000000002e-05").
  EXPECT_EQ(formatValue(0.00001 * 1.5), "1.5000000000000002e-05");
  EXPECT_EQ(formatValue(2.5), "2.5");
  EXPECT_EQ(formatValue(100000), "100000");  // exponent 5: plain
  EXPECT_EQ(formatValue(1000000), "1e+06");  // exponent 6: %e
  EXPECT_EQ(formatValue(1234567), "1.234567e+06");
  EXPECT_EQ(formatValue(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(formatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(formatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(formatValue(std::nan("")), "NaN");
}

TEST(MetricsExpositionTest, LabelValuesAndHelpAreEscaped) {
  EXPECT_EQ(escapeLabelValue(R"(a\b"c)"
                             "\n"
                             "d"),
            R"(a\\b\"c\nd)");
  EXPECT_EQ(escapeHelp(R"(say "hi" \ )"
                       "\n"),
            R"(say "hi" \\ \n)");
}

TEST(MetricsExpositionTest, SmallRegistryExactly) {
  Registry r;
  HistogramFamily& h = r.histogram("b_seconds", "B's time.", {"kind"}, {0.001, 0.5});
  CounterFamily& c = r.counter("a_total", "A \\ count\nper line.", {"path"});
  GaugeFamily& g = r.gauge("c_value", "C.");
  r.counter("d_total", "Never touched.", {"x"});  // labelled, no children: left out
  c.with({"z"}).inc(2);
  c.with({"a\"b\\c\nd"}).inc();
  g.only().set(2.5);
  h.with({"y"}).observe(0.0009765625);  // 2^-10, so the sum is exact
  h.with({"y"}).observe(0.25);
  h.with({"y"}).observe(7);
  h.with({"x"}).observe(0.5);
  EXPECT_EQ(r.render(),
            "# HELP a_total A \\\\ count\\nper line.\n"
            "# TYPE a_total counter\n"
            "a_total{path=\"a\\\"b\\\\c\\nd\"} 1\n"
            "a_total{path=\"z\"} 2\n"
            "# HELP b_seconds B's time.\n"
            "# TYPE b_seconds histogram\n"
            "b_seconds_bucket{kind=\"x\",le=\"0.001\"} 0\n"
            "b_seconds_bucket{kind=\"x\",le=\"0.5\"} 1\n"
            "b_seconds_bucket{kind=\"x\",le=\"+Inf\"} 1\n"
            "b_seconds_sum{kind=\"x\"} 0.5\n"
            "b_seconds_count{kind=\"x\"} 1\n"
            "b_seconds_bucket{kind=\"y\",le=\"0.001\"} 1\n"
            "b_seconds_bucket{kind=\"y\",le=\"0.5\"} 2\n"
            "b_seconds_bucket{kind=\"y\",le=\"+Inf\"} 3\n"
            "b_seconds_sum{kind=\"y\"} 7.2509765625\n"
            "b_seconds_count{kind=\"y\"} 3\n"
            "# HELP c_value C.\n"
            "# TYPE c_value gauge\n"
            "c_value 2.5\n");
}

TEST(MetricsExpositionTest, UnlabelledHistogramHasOnlyLe) {
  Registry r;
  r.histogram("h", "H.", {}, {1}).only().observe(1);
  EXPECT_EQ(r.render(),
            "# HELP h H.\n"
            "# TYPE h histogram\n"
            "h_bucket{le=\"1\"} 1\n"
            "h_bucket{le=\"+Inf\"} 1\n"
            "h_sum 1\n"
            "h_count 1\n");
}

TEST(MetricsExpositionTest, CollectorsRunAtScrapeTimeAndAreSortedIn) {
  Registry r;
  r.gauge("m_gauge", "M.").only().set(1);
  int scrapes = 0;
  r.addCollector([&scrapes](std::vector<FamilySnapshot>& out) {
    ++scrapes;
    FamilySnapshot f;
    f.desc = {"a_pending", "Pending.", MetricType::kGauge, {"queue"}};
    f.children.push_back({{"backoff"}, static_cast<double>(scrapes), {}, 0});
    f.children.push_back({{"active"}, 3, {}, 0});
    out.push_back(f);
    f.desc.name = "m_gauge";  // taken by a registered family: dropped
    out.push_back(f);
  });
  const std::string expected1 =
      "# HELP a_pending Pending.\n"
      "# TYPE a_pending gauge\n"
      "a_pending{queue=\"active\"} 3\n"
      "a_pending{queue=\"backoff\"} 1\n"
      "# HELP m_gauge M.\n"
      "# TYPE m_gauge gauge\n"
      "m_gauge 1\n";
  EXPECT_EQ(r.render(), expected1);
  EXPECT_NE(r.render().find("a_pending{queue=\"backoff\"} 2\n"), std::string::npos);
}

TEST(MetricsExpositionTest, DuplicateNamesAreRefused) {
  Registry r;
  r.counter("x_total", "X.");
  EXPECT_THROW(r.gauge("x_total", "X."), std::invalid_argument);
}

}  // namespace
}  // namespace sh::metrics::exposition_test
