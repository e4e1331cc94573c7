#include "host/config/diagnostics.h"

#include <gtest/gtest.h>

#include "host/config/toml_reader.h"

namespace sh::config::diagnostics_test {
namespace {

TEST(DiagnosticTest, Format) {
  EXPECT_EQ((Diagnostic{{"a.toml", 3, 5}, "plugins.score", "bad"}).str(),
            "a.toml:3:5: plugins.score: bad");
  EXPECT_EQ((Diagnostic{{"a.toml", 0, 0}, "", "cannot open file"}).str(),
            "a.toml: cannot open file");
  EXPECT_EQ((Diagnostic{{"a.toml", 2, 1}, "k", "odd", Severity::kWarning}).str(),
            "a.toml:2:1: k: warning: odd");
}

TEST(DiagnosticsTest, CollectsAndCountsErrors) {
  Diagnostics diags;
  EXPECT_TRUE(diags.empty());
  diags.warning({"f", 1, 1}, "a", "w");
  EXPECT_FALSE(diags.hasErrors());
  diags.error({"f", 2, 3}, "b", "e1");
  diags.error({"f", 4, 5}, "c", "e2");
  EXPECT_EQ(diags.errorCount(), 2u);
  EXPECT_EQ(diags.items().size(), 3u);
  EXPECT_EQ(diags.str(), "f:1:1: a: warning: w\nf:2:3: b: e1\nf:4:5: c: e2\n");
}

struct SyntaxCase {
  std::string name;
  std::string text;
  std::string want;
};

class TomlSyntaxErrorTest : public ::testing::TestWithParam<SyntaxCase> {};

TEST_P(TomlSyntaxErrorTest, BecomesOneLocatedDiagnostic) {
  Diagnostics diags;
  EXPECT_FALSE(parseToml(GetParam().text, "bad.toml", diags).has_value());
  ASSERT_EQ(diags.items().size(), 1u);
  EXPECT_EQ(diags.items()[0].str(), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Toml11, TomlSyntaxErrorTest,
    ::testing::Values(
        SyntaxCase{"UnterminatedArray", "a = 1\nb = [1,\nc = \"x\n",
                   "bad.toml:3:1: invalid TOML: value having invalid format appeared in an array "
                   "(it is not a valid value)"},
        SyntaxCase{"DuplicateKey", "a = 1\nb = 2\nb = 3\n",
                   "bad.toml:3:5: invalid TOML: value (\"b\") already exists (value defined "
                   "twice)"},
        SyntaxCase{"MissingValue", "a = 1\n[x]\ny = \n",
                   "bad.toml:3:5: invalid TOML: missing value after key-value separator '=' "
                   "(expected value, but got nothing)"},
        SyntaxCase{"BadKey", "a = 1\n  foo bar = 3\n",
                   "bad.toml:2:6: invalid TOML: invalid format for key (invalid character in "
                   "key)"},
        // toml11 3.7 reads past its buffer reporting these (tests/fuzz/corpus/profile).
        SyntaxCase{"InvalidUtf8InLiteralString", "a = 1\nb = 'x\xff'\n",
                   "bad.toml:2:7: invalid TOML: not valid UTF-8 (byte 0xff)"},
        SyntaxCase{"InvalidUtf8InMultiLineLiteral", "a = '''\xc3'''\n",
                   "bad.toml:1:8: invalid TOML: not valid UTF-8 (byte 0xc3)"},
        SyntaxCase{"SurrogateInComment", "# \xed\xa0\x80\na = 1\n",
                   "bad.toml:1:3: invalid TOML: not valid UTF-8 (byte 0xed)"}),
    [](const ::testing::TestParamInfo<SyntaxCase>& p) { return p.param.name; });

TEST(TomlSyntaxErrorTest, MessageWithoutSnippetUsesFallback) {
  const Diagnostic d = syntaxErrorDiagnostic("[error] toml::parse: odd", {"f.toml", 7, 2});
  EXPECT_EQ(d.str(), "f.toml:7:2: invalid TOML: odd");
}

TEST(TomlReadTest, MissingFile) {
  Diagnostics diags;
  EXPECT_FALSE(parseTomlFile("/nonexistent/x.toml", diags).has_value());
  EXPECT_EQ(diags.str(), "/nonexistent/x.toml: cannot read file: No such file or directory\n");
}

}  // namespace
}  // namespace sh::config::diagnostics_test
