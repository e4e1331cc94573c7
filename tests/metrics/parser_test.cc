// The test parser of the text format itself: it reads what the format allows and refuses the
// rest, so the suites that use it can trust a clean parse.
#include "tests/metrics/prometheus_text_parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace sh::metrics::testing::parser_test {
namespace {

TEST(MetricsParserTest, ReadsFamiliesSamplesAndEscapes) {
  auto fams = parsePrometheusText(
      "# HELP a_total Help with \\\\ and \\n.\n"
      "# TYPE a_total counter\n"
      "a_total{x=\"q\\\"\\\\\\n\",y=\"2\",} 3 1700000000000\n"
      "# a comment\n"
      "\n"
      "# TYPE h histogram\n"
      "h_bucket{le=\"+Inf\"} 1\n"
      "h_sum 0.5\n"
      "h_count 1\n");
  ASSERT_EQ(fams.size(), 2u);
  EXPECT_EQ(fams[0].help, "Help with \\ and \n.");
  EXPECT_EQ(fams[0].type, "counter");
  ASSERT_EQ(fams[0].samples.size(), 1u);
  EXPECT_EQ(fams[0].samples[0].label("x"), "q\"\\\n");
  EXPECT_EQ(fams[0].samples[0].value, 3);
  EXPECT_FALSE(fams[1].hasHelp);
  EXPECT_EQ(fams[1].samples.size(), 3u);
  EXPECT_EQ(fams[1].samples[0].label("le"), "+Inf");
  EXPECT_TRUE(std::isinf(parsePrometheusText("# TYPE g gauge\ng +Inf\n")[0].samples[0].value));
}

TEST(MetricsParserTest, RefusesGrammarErrors) {
  const char* bad[] = {
      "# TYPE a counter\na{x=\"1\"} \n",                      // no value
      "# TYPE a counter\na{x=1} 1\n",                         // unquoted label value
      "# TYPE a counter\na{x=\"\\t\"} 1\n",                   // invalid escape
      "# TYPE a counter\na{x=\"1\" y=\"2\"} 1\n",             // missing comma
      "# TYPE a counter\na{x=\"1\",x=\"2\"} 1\n",             // duplicate label
      "# TYPE a counter\na{1x=\"1\"} 1\n",                    // bad label name
      "# TYPE a counter\na{__x=\"1\"} 1\n",                   // reserved label name
      "# TYPE a counter\na one\n",                            // not a number
      "# TYPE a counter\na 1 2 3\n",                          // trailing text
      "# TYPE a counter\nb 1\n",                              // sample outside its family
      "b 1\n",                                                // no family at all
      "# TYPE a bogus\n",                                     // unknown type
      "# TYPE a counter\n# TYPE a counter\n",                 // second TYPE
      "# TYPE a counter\na 1\n# TYPE b gauge\n# HELP a x\n",  // family declared again
      "# TYPE h histogram\nh 1\n",                            // a histogram's bare name
      "# TYPE a counter\na 1",                                // no final newline
  };
  for (const char* text : bad) {
    EXPECT_THROW(parsePrometheusText(text), std::runtime_error) << text;
  }
}

}  // namespace
}  // namespace sh::metrics::testing::parser_test
