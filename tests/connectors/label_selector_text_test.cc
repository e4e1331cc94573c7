// Label and field selectors in text. The tables are upstream's, from
// k8s.io/apimachinery/pkg/labels/selector_test.go and pkg/fields/selector_test.go.
#include "host/connectors/label_selector_text.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace sh::connectors::label_selector_text_test {
namespace {

// Labels as the model hands them out. The ids are deliberately wrong: matching reads the text.
class Labels {
 public:
  Labels(std::initializer_list<std::pair<const std::string, std::string>> set) : set_(set) {
    for (const auto& [k, v] : set_) {
      labels_.push_back({999, 999, {k.data(), k.size()}, {v.data(), v.size()}});
    }
  }
  const sh_label* data() const { return labels_.data(); }
  std::size_t size() const { return labels_.size(); }

 private:
  std::map<std::string, std::string> set_;
  std::vector<sh_label> labels_;
};

LabelSelectorText parseLabels(std::string_view text) {
  std::string error;
  auto s = LabelSelectorText::parse(text, error);
  EXPECT_TRUE(s.has_value()) << "\"" << text << "\": " << error;
  return s.value_or(LabelSelectorText());
}

std::string labelError(std::string_view text) {
  std::string error;
  auto s = LabelSelectorText::parse(text, error);
  EXPECT_FALSE(s.has_value()) << "\"" << text << "\" parsed as \"" << (s ? s->text() : "") << "\"";
  return error;
}

bool labelsMatch(std::string_view selector, const Labels& labels) {
  return parseLabels(selector).matches(labels.data(), labels.size());
}

std::string without(std::string s, char c) {
  std::erase(s, c);
  return s;
}

// ---------------------------------------------------------------------------------------
// Labels

// TestSelectorParse.
TEST(LabelSelectorTextTest, ParsesAndWritesBack) {
  for (const char* text :
       {"x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"}) {
    EXPECT_EQ(parseLabels(text).text(), without(text, ' ')) << text;
  }
  for (const char* text : {"x=a||y=b", "x==a==b", "!x=a", "x<a"}) {
    labelError(text);
  }
}

// TestDeterministicParse.
TEST(LabelSelectorTextTest, SortsByKey) {
  EXPECT_EQ(parseLabels("x=a,a=x").text(), "a=x,x=a");
  EXPECT_EQ(parseLabels("a=x,x=a").text(), "a=x,x=a");
}

TEST(LabelSelectorTextTest, EmptyMatchesEverything) {
  EXPECT_TRUE(LabelSelectorText().empty());
  EXPECT_TRUE(LabelSelectorText().matches(nullptr, 0));
  EXPECT_TRUE(parseLabels("").empty());
  EXPECT_TRUE(parseLabels(" \t\r\n").empty());
  EXPECT_FALSE(parseLabels("x").empty());
}

// TestSelectorMatches.
TEST(LabelSelectorTextTest, Matches) {
  EXPECT_TRUE(labelsMatch("", {{"x", "y"}}));
  EXPECT_TRUE(labelsMatch("x=y", {{"x", "y"}}));
  EXPECT_TRUE(labelsMatch("x=y,z=w", {{"x", "y"}, {"z", "w"}}));
  EXPECT_TRUE(labelsMatch("x!=y,z!=w", {{"x", "z"}, {"z", "a"}}));
  EXPECT_TRUE(labelsMatch("notin=in", {{"notin", "in"}}));  // in and notin in exactMatch
  EXPECT_TRUE(labelsMatch("x", {{"x", "z"}}));
  EXPECT_TRUE(labelsMatch("!x", {{"y", "z"}}));
  EXPECT_TRUE(labelsMatch("x>1", {{"x", "2"}}));
  EXPECT_TRUE(labelsMatch("x<1", {{"x", "0"}}));
  EXPECT_FALSE(labelsMatch("x=z", {}));
  EXPECT_FALSE(labelsMatch("x=y", {{"x", "z"}}));
  EXPECT_FALSE(labelsMatch("x=y,z=w", {{"x", "w"}, {"z", "w"}}));
  EXPECT_FALSE(labelsMatch("x!=y,z!=w", {{"x", "z"}, {"z", "w"}}));
  EXPECT_FALSE(labelsMatch("x", {{"y", "z"}}));
  EXPECT_FALSE(labelsMatch("!x", {{"x", "z"}}));
  EXPECT_FALSE(labelsMatch("x>1", {{"x", "0"}}));
  EXPECT_FALSE(labelsMatch("x<1", {{"x", "2"}}));

  Labels set{{"foo", "bar"}, {"baz", "blah"}};
  EXPECT_TRUE(labelsMatch("foo=bar", set));
  EXPECT_TRUE(labelsMatch("baz=blah", set));
  EXPECT_TRUE(labelsMatch("foo=bar,baz=blah", set));
  EXPECT_FALSE(labelsMatch("foo=blah", set));
  EXPECT_FALSE(labelsMatch("baz=bar", set));
  EXPECT_FALSE(labelsMatch("foo=bar,foobar=bar,baz=blah", set));
}

// TestRequirementSelectorMatching, the selectors written as text.
TEST(LabelSelectorTextTest, RequirementMatching) {
  struct Case {
    Labels labels;
    const char* selector;
    bool match;
  };
  const Case cases[] = {
      {{{"x", "foo"}, {"y", "baz"}}, "x in (foo),y notin (alpha)", true},
      {{{"x", "foo"}, {"y", "baz"}}, "x in (foo),y in (alpha)", false},
      {{{"y", ""}}, "x notin (),y", true},
      {{{"y", ""}}, "!x,y", true},
      {{{"y", ""}}, "x notin (),!y", false},
      {{{"y", "baz"}}, "x in ()", false},
      {{{"z", "2"}}, "z>1", true},
      {{{"z", "v2"}}, "z>1", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(labelsMatch(c.selector, c.labels), c.match) << c.selector;
  }
}

TEST(LabelSelectorTextTest, IntegerComparisons) {
  EXPECT_TRUE(labelsMatch("x>007", {{"x", "8"}}));
  EXPECT_TRUE(labelsMatch("x<1", {{"x", "-5"}}));  // the label side may carry a sign
  EXPECT_TRUE(labelsMatch("x<9223372036854775807", {{"x", "9223372036854775806"}}));
  EXPECT_FALSE(labelsMatch("x>1", {{"x", "99999999999999999999"}}));  // not an int64
  EXPECT_FALSE(labelsMatch("x>1", {}));
  EXPECT_FALSE(labelsMatch("x<1", {}));
  EXPECT_EQ(labelError("x>99999999999999999999"),
            "unable to parse requirement: values[0]: Invalid value: \"99999999999999999999\": "
            "for 'Gt', 'Lt' operators, the value must be an integer");
}

// TestSetSelectorParser; what upstream compares as structures is compared as text.
TEST(LabelSelectorTextTest, SetSelectorParser) {
  struct Case {
    const char* in;
    const char* out;  // nullptr: must not parse
  };
  const Case cases[] = {
      {"", ""},
      {"\rx", "x"},
      {"this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"},
      {"this-is-another-dns.domain.com/key-with-dash in (so,what)",
       "this-is-another-dns.domain.com/key-with-dash in (so,what)"},
      {"0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
       "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"},
      {"foo  in\t (abc)", "foo in (abc)"},
      {"x notin\n (abc)", "x notin (abc)"},
      {"x  notin\t\t\t(abc,def)", "x notin (abc,def)"},
      {"x in (abc,def)", "x in (abc,def)"},
      {"x in (abc,)", "x in (,abc)"},
      {"x in (abc,abc)", "x in (abc)"},
      {"x in ()", "x in ()"},
      {"x in (a,,)", "x in (,a)"},
      {"x in (a,,,)", "x in (,a)"},
      {"x in (a,,,,,,)", "x in (,a)"},
      {"x in (a,,a,,a,,a,,)", "x in (,a)"},
      {"x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"},
      {"x,y in (a)", "x,y in (a)"},
      {"x=a", "x=a"},
      {"x>1", "x>1"},
      {"x<7", "x<7"},
      {"x=a,y!=b", "x=a,y!=b"},
      {"x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"},
      {"x=a||y=b", nullptr},
      {"x,,y", nullptr},
      {",x,y", nullptr},
      {"x nott in (y)", nullptr},
      {"x notin ( )", "x notin ()"},
      {"x notin (, a)", "x notin (,a)"},
      {"a in (xyz),", nullptr},
      {"a in (xyz)b notin ()", nullptr},
      {"a ", "a"},
      {"a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"},  // 'in' inside a list of values
      {"a in (xyz abc)", nullptr},                          // no comma
      {"a notin(", nullptr},                                // bad formed
      {"a (", nullptr},                                     // cpar
      {"(", nullptr},                                       // opar
  };
  for (const Case& c : cases) {
    if (c.out == nullptr) {
      labelError(c.in);
    } else {
      EXPECT_EQ(parseLabels(c.in).text(), c.out) << c.in;
    }
  }
}

// TestToString, the requirements given as text.
TEST(LabelSelectorTextTest, Text) {
  for (const char* text :
       {"x in (abc,def),y notin (jkl),z", "x notin (abc,def),y!=jkl,!z",
        "x notin (abc),y in (jkl,mno),z notin ()", "x=abc,y==jkl,z!=a,z", "x>2,y<8,z"}) {
    EXPECT_EQ(parseLabels(text).text(), text);
  }
  // Requirements on one key keep their order.
  EXPECT_EQ(parseLabels("z,a,z!=a").text(), "a,z,z!=a");
}

// TestLexer and TestParseOperator: each token alone, then as an operator. The lexer takes the
// longest token ("!=" not "!"); anything else that is not a symbol is an identifier.
TEST(LabelSelectorTextTest, Tokens) {
  const std::string kUnexpected = "', expected: !, identifier, or 'end of string'";
  EXPECT_EQ(labelError(","), "found '," + kUnexpected);
  EXPECT_EQ(labelError("="), "found '=" + kUnexpected);
  EXPECT_EQ(labelError("=="), "found '==" + kUnexpected);
  EXPECT_EQ(labelError(">"), "found '>" + kUnexpected);
  EXPECT_EQ(labelError("<"), "found '<" + kUnexpected);
  EXPECT_EQ(labelError("!="), "found '!=" + kUnexpected);
  EXPECT_EQ(labelError("("), "found '(" + kUnexpected);
  EXPECT_EQ(labelError(")"), "found ')" + kUnexpected);
  EXPECT_EQ(labelError("!"), "unable to parse requirement: found '', expected: identifier");
  EXPECT_EQ(labelError("!!x"), "unable to parse requirement: found '!', expected: identifier");
  // Keywords are keys where a key is expected.
  EXPECT_EQ(parseLabels("in").text(), "in");
  EXPECT_EQ(parseLabels("notin").text(), "notin");
  EXPECT_EQ(parseLabels("in in (in)").text(), "in in (in)");
  // "~" and "||" are identifiers, and not valid keys.
  EXPECT_TRUE(labelError("~").starts_with("unable to parse requirement: Invalid value: \"~\": "));
  EXPECT_TRUE(labelError("||").starts_with("unable to parse requirement: Invalid value: \"||\": "));

  const std::string kOperators = "', expected: in, notin, =, ==, !=, gt, lt";
  EXPECT_EQ(labelError("x !"), "unable to parse requirement: found '!" + kOperators);
  EXPECT_EQ(labelError("x exists"), "unable to parse requirement: found 'exists" + kOperators);
  EXPECT_EQ(labelError("x ("), "unable to parse requirement: found '(" + kOperators);
  const std::pair<const char*, const char*> kAccepted[] = {
      {"x in (a)", "x in (a)"}, {"x notin (a)", "x notin (a)"},
      {"x = a", "x=a"},         {"x == a", "x==a"},
      {"x != a", "x!=a"},       {"x > 1", "x>1"},
      {"x < 1", "x<1"},         {"x==a", "x==a"},
      {"x!=a", "x!=a"},
  };
  for (const auto& [text, canonical] : kAccepted) {
    EXPECT_EQ(parseLabels(text).text(), canonical) << text;
  }
}

TEST(LabelSelectorTextTest, SyntaxMessages) {
  EXPECT_EQ(labelError("x=a,"), "found '', expected: identifier after ','");
  EXPECT_EQ(labelError("x=a b"), "found 'b', expected: ',' or 'end of string'");
  EXPECT_EQ(labelError("!x=a"), "found '=', expected: ',' or 'end of string'");
  EXPECT_EQ(labelError("x=("), "unable to parse requirement: found '(', expected: identifier");
  EXPECT_EQ(labelError("x in a"), "unable to parse requirement: found 'a' expected: '('");
  EXPECT_EQ(labelError("x in (="),
            "unable to parse requirement: found '=', expected: ',', ')' or identifier");
  EXPECT_EQ(labelError("x in (a b)"),
            "unable to parse requirement: found 'b', expected: ',' or ')'");
  EXPECT_EQ(labelError("x in (a,"),
            "unable to parse requirement: found '', expected: ',', or identifier");
}

// TestRequirementConstructor's cases that text can reach, and content.IsLabelKey's messages.
TEST(LabelSelectorTextTest, ValidationMessages) {
  const std::string kName =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
      "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  EXPECT_EQ(labelError("-x"),
            "unable to parse requirement: Invalid value: \"-x\": name part " + kName);
  EXPECT_EQ(labelError("a/b/c"),
            "unable to parse requirement: Invalid value: \"a/b/c\": a valid label key " + kName +
                " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
  EXPECT_EQ(labelError("/x"),
            "unable to parse requirement: Invalid value: \"/x\": prefix part must be non-empty");
  EXPECT_EQ(labelError("Example.com/x"),
            "unable to parse requirement: Invalid value: \"Example.com/x\": prefix part a "
            "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  EXPECT_EQ(labelError("x/"),
            "unable to parse requirement: Invalid value: \"x/\": name part "
            "must be non-empty; name part " +
                kName);
  std::string a254(254, 'a');
  EXPECT_EQ(labelError(a254), "unable to parse requirement: Invalid value: \"" + a254 +
                                  "\": name part must be no more than 63 bytes");
  EXPECT_EQ(parseLabels(std::string(63, 'a')).text(), std::string(63, 'a'));
  EXPECT_EQ(parseLabels(std::string(253, 'a') + "/" + std::string(63, 'b')).text(),
            std::string(253, 'a') + "/" + std::string(63, 'b'));
  labelError(std::string(254, 'a') + "/b");

  const std::string kValue =
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
      "'my_value',  or '12345', regex used for validation is "
      "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  EXPECT_EQ(labelError("x16=" + a254),
            "unable to parse requirement: values[0][x16]: Invalid value: \"" + a254 +
                "\": must be no more than 63 bytes");
  EXPECT_EQ(labelError("x=a-"),
            "unable to parse requirement: values[0][x]: Invalid value: \"a-\": " + kValue);
  // Several bad values aggregate, in the order of the sorted set.
  EXPECT_EQ(labelError("x in (b-,a-)"),
            "unable to parse requirement: [values[0][x]: Invalid value: \"a-\": " + kValue +
                ", values[1][x]: Invalid value: \"b-\": " + kValue + "]");
  // An integer that is not a label value, and one that is neither.
  EXPECT_EQ(labelError("x>-1"),
            "unable to parse requirement: values[0][x]: Invalid value: \"-1\": " + kValue);
  EXPECT_EQ(labelError("x<a"),
            "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' "
            "operators, the value must be an integer");
  // Control bytes are quoted as Go's %q writes them, and a NUL is no end of text.
  EXPECT_TRUE(labelError(std::string_view("x\0y", 3))
                  .starts_with("unable to parse requirement: Invalid value: \"x\\x00y\": "));
}

// ---------------------------------------------------------------------------------------
// Fields

FieldSelectorText parseFields(std::string_view text) {
  std::string error;
  auto s = FieldSelectorText::parse(text, error);
  EXPECT_TRUE(s.has_value()) << "\"" << text << "\": " << error;
  return s.value_or(FieldSelectorText());
}

std::string fieldError(std::string_view text) {
  std::string error;
  auto s = FieldSelectorText::parse(text, error);
  EXPECT_FALSE(s.has_value()) << "\"" << text << "\" parsed as \"" << (s ? s->text() : "") << "\"";
  return error;
}

bool fieldsMatch(std::string_view selector, std::string_view object) {
  return parseFields(selector).matches(boost::json::parse(object));
}

// TestSelectorParse and TestDeterministicParse.
TEST(FieldSelectorTextTest, ParsesAndWritesBack) {
  for (const char* text : {"x=a,y=b,z=c", "", "x!=a,y=b", R"(x=a||y\=b)", R"(x=a\=\=b)"}) {
    EXPECT_EQ(parseFields(text).text(), text);
  }
  for (const char* text : {"x=a||y=b", "x==a==b", "x=a,b", "x in (a)", "x in (a,b,c)", "x"}) {
    fieldError(text);
  }
  EXPECT_EQ(parseFields("x=a,a=x").text(), "a=x,x=a");
  EXPECT_EQ(parseFields("a=x,x=a").text(), "a=x,x=a");
  EXPECT_EQ(parseFields("b==x").text(), "b=x");
}

// TestSplitTerms and TestSplitTerm, seen through what parses.
TEST(FieldSelectorTextTest, Terms) {
  EXPECT_EQ(parseFields("a=avalue,b==bvalue,c!=cvalue").text(), "a=avalue,b=bvalue,c!=cvalue");
  EXPECT_EQ(parseFields("a=a,").text(), "a=a");
  EXPECT_EQ(parseFields(",a=a").text(), "a=a");
  // Terms sort by their raw text, and '2' comes before '='.
  EXPECT_EQ(parseFields(R"(k=\,,k2=v2)").text(), R"(k2=v2,k=\,)");
  EXPECT_EQ(parseFields(R"(k=\\,k2=v2)").text(), R"(k2=v2,k=\\)");
  EXPECT_EQ(parseFields(R"(k=\\\,,k2=v2)").text(), R"(k2=v2,k=\\\,)");
  EXPECT_EQ(parseFields("함=수,목=록").text(), "목=록,함=수");
  EXPECT_EQ(parseFields(R"(k=\=)").text(), R"(k=\=)");
  EXPECT_EQ(parseFields("c!=").text(), "c!=");
  // An empty field with an empty value selects everything.
  EXPECT_TRUE(parseFields("=").empty());
  EXPECT_TRUE(parseFields(",,=,==,").empty());
  EXPECT_EQ(parseFields("=a").text(), "=a");
}

// TestEscapeValue's invalid sequences, and upstream's messages.
TEST(FieldSelectorTextTest, Escapes) {
  EXPECT_TRUE(fieldsMatch(R"(k=\\\=\\\,\\)", R"({"k":"\\=\\,\\"})"));
  EXPECT_EQ(fieldError(R"(k=\)"), R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(fieldError(R"(k=\\\)"), R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(fieldError(R"(k=\a)"), R"(invalid field selector: invalid escape sequence: \a)");
  EXPECT_EQ(fieldError("k=\\수"), "invalid field selector: invalid escape sequence: \\수");
  EXPECT_EQ(fieldError("x==a==b"), "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(fieldError("x=a,b"), "invalid selector: 'x=a,b'; can't understand 'b'");
}

// TestSelectorMatches, the field sets as objects.
TEST(FieldSelectorTextTest, Matches) {
  EXPECT_TRUE(fieldsMatch("", R"({"x":"y"})"));
  EXPECT_TRUE(fieldsMatch("x=y", R"({"x":"y"})"));
  EXPECT_TRUE(fieldsMatch("x=y,z=w", R"({"x":"y","z":"w"})"));
  EXPECT_TRUE(fieldsMatch("x!=y,z!=w", R"({"x":"z","z":"a"})"));
  EXPECT_TRUE(fieldsMatch("notin=in", R"({"notin":"in"})"));
  EXPECT_FALSE(fieldsMatch("x=y", R"({"x":"z"})"));
  EXPECT_FALSE(fieldsMatch("x=y,z=w", R"({"x":"w","z":"w"})"));
  EXPECT_FALSE(fieldsMatch("x!=y,z!=w", R"({"x":"z","z":"w"})"));

  const char* set = R"({"foo":"bar","baz":"blah","complex":"=value\\,\\"})";
  EXPECT_TRUE(fieldsMatch("foo=bar", set));
  EXPECT_TRUE(fieldsMatch("baz=blah", set));
  EXPECT_TRUE(fieldsMatch("foo=bar,baz=blah", set));
  EXPECT_TRUE(fieldsMatch(R"(foo=bar,baz=blah,complex=\=value\\\,\\)", set));
  EXPECT_FALSE(fieldsMatch("foo=blah", set));
  EXPECT_FALSE(fieldsMatch("baz=bar", set));
  EXPECT_FALSE(fieldsMatch("foo=bar,foobar=bar,baz=blah", set));
}

TEST(FieldSelectorTextTest, DottedPaths) {
  const char* pod = R"({"metadata":{"name":"p","namespace":"ns"},
      "spec":{"replicas":3,"ratio":3.0,"half":0.5,"paused":false,"gone":null,"list":[1]},
      "status":{"phase":"Running"}})";
  EXPECT_TRUE(fieldsMatch("metadata.name=p,metadata.namespace=ns", pod));
  EXPECT_TRUE(fieldsMatch("status.phase=Running", pod));
  EXPECT_TRUE(fieldsMatch("status.phase!=Pending", pod));
  EXPECT_FALSE(fieldsMatch("status.phase!=Running", pod));
  // An absent field reads as "": unbound pods select with spec.nodeName=.
  EXPECT_TRUE(fieldsMatch("spec.nodeName=", pod));
  EXPECT_FALSE(fieldsMatch("spec.nodeName!=", pod));
  EXPECT_TRUE(fieldsMatch("spec.nodeName=", R"({"metadata":{"name":"p"}})"));
  EXPECT_FALSE(fieldsMatch("spec.nodeName=", R"({"spec":{"nodeName":"n1"}})"));
  EXPECT_TRUE(fieldsMatch("spec.nodeName!=", R"({"spec":{"nodeName":"n1"}})"));
  // Through a string or an array is no further.
  EXPECT_TRUE(fieldsMatch("status.phase.x=", pod));
  EXPECT_TRUE(fieldsMatch("spec.list.0=", pod));
  // Scalars compare as their JSON text.
  EXPECT_TRUE(fieldsMatch("spec.replicas=3", pod));
  EXPECT_TRUE(fieldsMatch("spec.ratio=3", pod));
  EXPECT_TRUE(fieldsMatch("spec.half=0.5", pod));
  EXPECT_TRUE(fieldsMatch("spec.paused=false", pod));
  EXPECT_TRUE(fieldsMatch("spec.gone=", pod));
  EXPECT_TRUE(fieldsMatch(R"(spec.list=[1])", pod));
  EXPECT_FALSE(fieldsMatch("spec.replicas=03", pod));
  // A path can only name an object's members.
  EXPECT_TRUE(fieldsMatch("x=", "[]"));
  EXPECT_FALSE(fieldsMatch("=a", pod));
}

// ---------------------------------------------------------------------------------------
// Hostile input: a megabyte of anything parses or fails quickly, with a short message.

constexpr std::size_t kMegabyte = 1 << 20;

// Not a measure of speed: a linear parse of a megabyte ends in well under a second, even under
// the sanitizers on a loaded machine, where a quadratic one would run for hours. The bound only
// tells the two apart.
template <typename F>
void expectBounded(F&& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(120));
}

TEST(LabelSelectorTextTest, HostileInput) {
  for (char c : {'(', ')', ',', '!', '=', '<', ' ', 'a', '\0', '\\'}) {
    expectBounded([&] {
      std::string error;
      auto s = LabelSelectorText::parse(std::string(kMegabyte, c), error);
      if (c == ' ') {
        EXPECT_TRUE(s && s->empty());
      } else {
        EXPECT_FALSE(s) << c;
        EXPECT_LT(error.size(), 2000u) << c;
      }
    });
  }
  expectBounded([] {
    std::string text;
    for (int i = 0; text.size() < kMegabyte; ++i) {
      text += "k" + std::to_string(i) + " in (a,b),";
    }
    text += "z";
    auto s = parseLabels(text);
    Labels labels{{"k0", "a"}, {"k1", "b"}};
    EXPECT_FALSE(s.matches(labels.data(), labels.size()));
  });
  expectBounded([] {
    std::string text = "k in (";
    while (text.size() < kMegabyte) {
      text += "v" + std::to_string(text.size()) + ",";
    }
    text += ")";
    EXPECT_TRUE(parseLabels(text).matches(Labels{{"k", "v6"}}.data(), 1));
  });
  expectBounded([] {
    std::string text = "k in (" + std::string(kMegabyte, ',') + ")";
    EXPECT_EQ(parseLabels(text).text(), "k in ()");
  });
}

TEST(FieldSelectorTextTest, HostileInput) {
  for (char c : {'(', ',', '=', '\\', 'a', '!'}) {
    expectBounded([&] {
      std::string error;
      auto s = FieldSelectorText::parse(std::string(kMegabyte, c), error);
      if (c == ',') {
        EXPECT_TRUE(s && s->empty());
      } else {
        EXPECT_FALSE(s) << c;
        EXPECT_LT(error.size(), 2000u) << c;
      }
    });
  }
  expectBounded([] {
    std::string text;
    for (int i = 0; text.size() < kMegabyte; ++i) {
      text += "f" + std::to_string(i) + "=\\,,";
    }
    auto s = parseFields(text);
    EXPECT_FALSE(s.matches(boost::json::parse(R"({"f0":","})")));
  });
}

}  // namespace
}  // namespace sh::connectors::label_selector_text_test
