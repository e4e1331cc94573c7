#include "host/connectors/label_selector_text.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <utility>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace sh::connectors {

namespace {

// ---------------------------------------------------------------------------------------
// Message helpers. Upstream quotes the offending text whole; a selector comes from a plugin
// and may be a megabyte long, so quoted text stops at kQuotedMax bytes.

constexpr std::size_t kQuotedMax = 256;

std::string_view clipped(std::string_view s, bool& cut) {
  cut = s.size() > kQuotedMax;
  return cut ? s.substr(0, kQuotedMax) : s;
}

// The text as in upstream's '%s'.
std::string shown(std::string_view s) {
  bool cut = false;
  std::string out(clipped(s, cut));
  if (cut) {
    out += "...";
  }
  return out;
}

// The text as Go's %q writes it: escapes for quotes, backslashes and control bytes.
std::string quoted(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  bool cut = false;
  std::string out = "\"";
  for (char c : clipped(s, cut)) {
    auto b = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (b < 0x20 || b == 0x7f) {
          out += "\\x";
          out += kHex[b >> 4];
          out += kHex[b & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += cut ? "\"..." : "\"";
  return out;
}

// content.RegexError.
std::string regexError(std::string_view msg, std::string_view re,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  out += " (e.g. ";
  bool first = true;
  for (std::string_view e : examples) {
    if (!first) {
      out += " or ";
    }
    first = false;
    out += "'";
    out += e;
    out += "', ";
  }
  out += "regex used for validation is '";
  out += re;
  out += "')";
  return out;
}

// Upstream's field.Invalid(...).Error() of a string value; `path` is empty where upstream's
// is nil (it prints "<nil>: ").
std::string invalid(std::string_view path, std::string_view value, std::string_view detail) {
  std::string out;
  if (!path.empty()) {
    out += path;
    out += ": ";
  }
  out += "Invalid value: " + quoted(value) + ": ";
  out += detail;
  return out;
}

// utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated in brackets.
std::string aggregate(const std::vector<std::string>& errors) {
  std::vector<std::string_view> seen;
  for (const std::string& e : errors) {
    if (std::find(seen.begin(), seen.end(), e) == seen.end()) {
      seen.push_back(e);
    }
  }
  if (seen.size() == 1) {
    return std::string(seen.front());
  }
  std::string out = "[";
  for (std::size_t i = 0; i < seen.size(); ++i) {
    out += i == 0 ? "" : ", ";
    out += seen[i];
  }
  return out + "]";
}

std::string joined(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += i == 0 ? "" : sep;
    out += parts[i];
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Label keys and values: k8s.io/apimachinery/pkg/api/validate/content (kube.go, dns.go),
// the regular expressions written out as scans so that their cost is linear in the input.

constexpr std::string_view kLabelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelKeyErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::size_t kLabelMaxLength = 63;
constexpr std::size_t kDns1123SubdomainMaxLength = 253;

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool isLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool matchesLabelKeyFmt(std::string_view s) {
  if (s.empty() || !isAlnum(s.front()) || !isAlnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return isAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])? joined by dots.
bool matchesDns1123Subdomain(std::string_view s) {
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !isLowerAlnum(label.front()) || !isLowerAlnum(label.back()) ||
        !std::all_of(label.begin(), label.end(),
                     [](char c) { return isLowerAlnum(c) || c == '-'; })) {
      return false;
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    start = dot + 1;
  }
}

std::string maxLenError(std::size_t n) {
  return "must be no more than " + std::to_string(n) + " bytes";
}

// content.IsLabelKey.
std::vector<std::string> labelKeyErrors(std::string_view key) {
  std::vector<std::string> errs;
  std::string_view name = key;
  std::size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back("a valid label key " +
                     regexError(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"}) +
                     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > kDns1123SubdomainMaxLength) {
        errs.push_back("prefix part " + maxLenError(kDns1123SubdomainMaxLength));
      }
      if (!matchesDns1123Subdomain(prefix)) {
        errs.push_back("prefix part " +
                       regexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
      }
    }
  }
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else if (name.size() > kLabelMaxLength) {
    errs.push_back("name part " + maxLenError(kLabelMaxLength));
  }
  if (!matchesLabelKeyFmt(name)) {
    errs.push_back("name part " +
                   regexError(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

// content.IsLabelValue.
std::vector<std::string> labelValueErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelMaxLength) {
    errs.push_back(maxLenError(kLabelMaxLength));
  }
  if (!value.empty() && !matchesLabelKeyFmt(value)) {
    errs.push_back(regexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

// strconv.ParseInt(s, 10, 64): an optional sign, then decimal digits, within int64.
std::optional<int64_t> parseInt(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) {
    return std::nullopt;
  }
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude);
  if (ec != std::errc() || end != s.data() + s.size()) {
    return std::nullopt;
  }
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (magnitude > kMax + (negative ? 1 : 0)) {
    return std::nullopt;
  }
  if (negative) {
    return magnitude == kMax + 1 ? std::numeric_limits<int64_t>::min()
                                 : -static_cast<int64_t>(magnitude);
  }
  return static_cast<int64_t>(magnitude);
}

// ---------------------------------------------------------------------------------------
// The label selector lexer (upstream's Lexer). It hands out one token at a time: the parser
// never looks further than the next token, so nothing grows with the input but the result.

enum class Token {
  kEndOfString,
  kClosedPar,
  kComma,
  kDoesNotExist,
  kDoubleEquals,
  kEquals,
  kGreaterThan,
  kIdentifier,
  kIn,
  kLessThan,
  kNotEquals,
  kNotIn,
  kOpenPar,
};

struct Item {
  Token tok = Token::kEndOfString;
  std::string_view lit;
};

bool isWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool isSpecialSymbol(char c) {
  switch (c) {
    case '=':
    case '!':
    case '(':
    case ')':
    case ',':
    case '>':
    case '<':
      return true;
    default:
      return false;
  }
}

std::optional<Token> symbolToken(std::string_view s) {
  static constexpr std::pair<std::string_view, Token> kSymbols[] = {
      {")", Token::kClosedPar},     {",", Token::kComma},      {"!", Token::kDoesNotExist},
      {"==", Token::kDoubleEquals}, {"=", Token::kEquals},     {">", Token::kGreaterThan},
      {"<", Token::kLessThan},      {"!=", Token::kNotEquals}, {"(", Token::kOpenPar},
  };
  for (const auto& [text, tok] : kSymbols) {
    if (text == s) {
      return tok;
    }
  }
  return std::nullopt;
}

// Upstream reads a NUL byte as the end of the text, so "a=b\0junk" would select a=b; here a
// NUL is an ordinary byte and fails validation like any other.
class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Item lex() {
    while (pos_ < s_.size() && isWhitespace(s_[pos_])) {
      ++pos_;
    }
    if (pos_ == s_.size()) {
      return {Token::kEndOfString, {}};
    }
    return isSpecialSymbol(s_[pos_]) ? scanSpecialSymbol() : scanIdOrKeyword();
  }

 private:
  Item scanIdOrKeyword() {
    std::size_t start = pos_;
    while (pos_ < s_.size() && !isSpecialSymbol(s_[pos_]) && !isWhitespace(s_[pos_])) {
      ++pos_;
    }
    std::string_view lit = s_.substr(start, pos_ - start);
    if (lit == "in") {
      return {Token::kIn, lit};
    }
    if (lit == "notin") {
      return {Token::kNotIn, lit};
    }
    return {Token::kIdentifier, lit};
  }

  // The longest run of symbols that is a token. Every single symbol is one, so this stops
  // after at most two.
  Item scanSpecialSymbol() {
    std::size_t start = pos_;
    Item last{Token::kEndOfString, {}};
    while (pos_ < s_.size() && isSpecialSymbol(s_[pos_])) {
      std::string_view run = s_.substr(start, pos_ + 1 - start);
      auto tok = symbolToken(run);
      if (!tok) {
        break;
      }
      last = {*tok, run};
      ++pos_;
    }
    return last;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

enum class Context { kKeyAndOperator, kValues };

// ---------------------------------------------------------------------------------------
// Field selector escapes (upstream's EscapeValue / UnescapeValue).

std::string escapeValue(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\' || c == ',' || c == '=') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

std::size_t utf8Length(unsigned char lead) {
  if (lead >= 0xf0) {
    return 4;
  }
  if (lead >= 0xe0) {
    return 3;
  }
  if (lead >= 0xc0) {
    return 2;
  }
  return 1;
}

std::optional<std::string> unescapeValue(std::string_view s, std::string& error) {
  if (s.find_first_of("\\,=") == std::string_view::npos) {
    return std::string(s);
  }
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\\') {
      if (i + 1 == s.size()) {
        error = "invalid field selector: invalid escape sequence: \\";
        return std::nullopt;
      }
      char next = s[i + 1];
      if (next != '\\' && next != ',' && next != '=') {
        std::size_t n = std::min(utf8Length(static_cast<unsigned char>(next)), s.size() - i - 1);
        error =
            "invalid field selector: invalid escape sequence: \\" + std::string(s.substr(i + 1, n));
        return std::nullopt;
      }
      out += next;
      ++i;
    } else if (c == ',' || c == '=') {
      // Upstream prints the rune with %v, which is its code point.
      error = "invalid field selector: unescaped character in value: " +
              std::to_string(static_cast<int>(c));
      return std::nullopt;
    } else {
      out += c;
    }
  }
  return out;
}

// Terms split at unescaped commas (upstream's splitTerms), empty ones dropped as upstream's
// parser drops them.
std::vector<std::string_view> splitTerms(std::string_view s) {
  std::vector<std::string_view> terms;
  std::size_t start = 0;
  bool inSlash = false;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && (inSlash || s[i] != ',')) {
      inSlash = !inSlash && s[i] == '\\';
      continue;
    }
    if (i > start) {
      terms.push_back(s.substr(start, i - start));
    }
    start = i + 1;
  }
  return terms;
}

// The first operator in the term, "!=" and "==" before "=" (upstream's splitTerm).
bool splitTerm(std::string_view term, std::string_view& lhs, std::string_view& op,
               std::string_view& rhs) {
  static constexpr std::string_view kOperators[] = {"!=", "==", "="};
  for (std::size_t i = 0; i < term.size(); ++i) {
    std::string_view rest = term.substr(i);
    for (std::string_view o : kOperators) {
      if (rest.starts_with(o)) {
        lhs = term.substr(0, i);
        op = o;
        rhs = rest.substr(o.size());
        return true;
      }
    }
  }
  return false;
}

// A field's text as the API server's field sets hold it: strings as they are, other scalars
// as their JSON text, an absent or null field as "".
std::string fieldText(const boost::json::value* v) {
  if (v == nullptr || v->is_null()) {
    return {};
  }
  if (v->is_string()) {
    return std::string(v->get_string());
  }
  if (v->is_double()) {
    // Go's encoding/json writes 3.0 as "3", where Boost.JSON writes "3e0".
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, v->get_double());
    return std::string(buf, res.ptr);
  }
  return boost::json::serialize(*v);
}

const boost::json::value* lookupPath(const boost::json::value& object, std::string_view path) {
  const boost::json::value* at = &object;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    std::string_view segment =
        path.substr(start, dot == std::string_view::npos ? path.npos : dot - start);
    const boost::json::object* o = at->if_object();
    at = o == nullptr ? nullptr : o->if_contains(segment);
    if (at == nullptr || dot == std::string_view::npos) {
      return at;
    }
    start = dot + 1;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// LabelSelectorText: upstream's Parser, the same productions and messages, over the lexer
// above. Every loop consumes a token, and nothing recurses.

class LabelSelectorText::Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text) { next_ = lexer_.lex(); }

  // Parser.parse.
  bool parse(std::vector<Requirement>& out, std::string& error) {
    while (true) {
      Item it = peek(Context::kValues);
      switch (it.tok) {
        case Token::kIdentifier:
        case Token::kDoesNotExist: {
          Requirement r;
          if (!parseRequirement(r, error)) {
            error = "unable to parse requirement: " + error;
            return false;
          }
          out.push_back(std::move(r));
          Item after = take(Context::kValues);
          if (after.tok == Token::kEndOfString) {
            return true;
          }
          if (after.tok != Token::kComma) {
            error = "found '" + shown(after.lit) + "', expected: ',' or 'end of string'";
            return false;
          }
          Item again = peek(Context::kValues);
          if (again.tok != Token::kIdentifier && again.tok != Token::kDoesNotExist) {
            error = "found '" + shown(again.lit) + "', expected: identifier after ','";
            return false;
          }
          break;
        }
        case Token::kEndOfString:
          return true;
        default:
          error = "found '" + shown(it.lit) + "', expected: !, identifier, or 'end of string'";
          return false;
      }
    }
  }

 private:
  // In the values context the keywords `in` and `notin` are identifiers ("notin=in").
  static Item inContext(Item it, Context context) {
    if (context == Context::kValues && (it.tok == Token::kIn || it.tok == Token::kNotIn)) {
      it.tok = Token::kIdentifier;
    }
    return it;
  }
  Item peek(Context context) const { return inContext(next_, context); }
  Item take(Context context) {
    Item it = next_;
    if (it.tok != Token::kEndOfString) {
      next_ = lexer_.lex();
    }
    return inContext(it, context);
  }

  bool parseRequirement(Requirement& r, std::string& error) {
    if (!parseKeyAndInferOperator(r, error)) {
      return false;
    }
    if (r.op == Op::kExists || r.op == Op::kDoesNotExist) {
      return true;
    }
    if (!parseOperator(r.op, error)) {
      return false;
    }
    bool parsed = (r.op == Op::kIn || r.op == Op::kNotIn) ? parseValues(r.values, error)
                                                          : parseExactValue(r.values, error);
    return parsed && validate(r, error);
  }

  // `key`, `!key`, or a key followed by an operator (r.op then set by parseOperator).
  bool parseKeyAndInferOperator(Requirement& r, std::string& error) {
    Item it = take(Context::kValues);
    bool negated = it.tok == Token::kDoesNotExist;
    if (negated) {
      it = take(Context::kValues);
    }
    if (it.tok != Token::kIdentifier) {
      error = "found '" + shown(it.lit) + "', expected: identifier";
      return false;
    }
    if (auto errs = labelKeyErrors(it.lit); !errs.empty()) {
      error = invalid("", it.lit, joined(errs, "; "));
      return false;
    }
    r.key = std::string(it.lit);
    Token after = peek(Context::kValues).tok;
    bool alone = after == Token::kEndOfString || after == Token::kComma;
    // "!key" with anything after it is kept as DoesNotExist; parse() then rejects what follows.
    r.op = negated ? Op::kDoesNotExist : (alone ? Op::kExists : Op::kEquals);
    return true;
  }

  bool parseOperator(Op& op, std::string& error) {
    Item it = take(Context::kKeyAndOperator);
    switch (it.tok) {
      case Token::kIn:
        op = Op::kIn;
        return true;
      case Token::kEquals:
        op = Op::kEquals;
        return true;
      case Token::kDoubleEquals:
        op = Op::kDoubleEquals;
        return true;
      case Token::kGreaterThan:
        op = Op::kGreater;
        return true;
      case Token::kLessThan:
        op = Op::kLess;
        return true;
      case Token::kNotIn:
        op = Op::kNotIn;
        return true;
      case Token::kNotEquals:
        op = Op::kNotEquals;
        return true;
      default:
        error = "found '" + shown(it.lit) + "', expected: in, notin, =, ==, !=, gt, lt";
        return false;
    }
  }

  // "(a,b)" into a sorted set; "()" and empty places between commas are the value "".
  bool parseValues(std::vector<std::string>& values, std::string& error) {
    Item open = take(Context::kValues);
    if (open.tok != Token::kOpenPar) {
      error = "found '" + shown(open.lit) + "' expected: '('";
      return false;
    }
    Item first = peek(Context::kValues);
    switch (first.tok) {
      case Token::kIdentifier:
      case Token::kComma:
        if (!parseIdentifiersList(values, error)) {
          return false;
        }
        if (take(Context::kValues).tok != Token::kClosedPar) {
          // Upstream names the token after '(' here, not the one it found.
          error = "found '" + shown(first.lit) + "', expected: ')'";
          return false;
        }
        break;
      case Token::kClosedPar:
        take(Context::kValues);
        values.emplace_back();
        break;
      default:
        error = "found '" + shown(first.lit) + "', expected: ',', ')' or identifier";
        return false;
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return true;
  }

  bool parseIdentifiersList(std::vector<std::string>& values, std::string& error) {
    while (true) {
      Item it = take(Context::kValues);
      if (it.tok == Token::kIdentifier) {
        values.emplace_back(it.lit);
        Item after = peek(Context::kValues);
        if (after.tok == Token::kClosedPar) {
          return true;
        }
        if (after.tok != Token::kComma) {
          error = "found '" + shown(after.lit) + "', expected: ',' or ')'";
          return false;
        }
      } else if (it.tok == Token::kComma) {
        if (values.empty()) {
          values.emplace_back();  // "(,"
        }
        Token after = peek(Context::kValues).tok;
        if (after == Token::kClosedPar || after == Token::kComma) {
          values.emplace_back();  // ",)" and ",,"; parseValues removes the repeats
          if (after == Token::kClosedPar) {
            return true;
          }
        }
      } else {
        error = "found '" + shown(it.lit) + "', expected: ',', or identifier";
        return false;
      }
    }
  }

  bool parseExactValue(std::vector<std::string>& values, std::string& error) {
    Token next = peek(Context::kValues).tok;
    if (next == Token::kEndOfString || next == Token::kComma) {
      values.emplace_back();
      return true;
    }
    Item it = take(Context::kValues);
    if (it.tok != Token::kIdentifier) {
      error = "found '" + shown(it.lit) + "', expected: identifier";
      return false;
    }
    values.emplace_back(it.lit);
    return true;
  }

  // What NewRequirement checks of values the parser produced: integers for > and <, label
  // values for all.
  static bool validate(Requirement& r, std::string& error) {
    std::vector<std::string> errs;
    if (r.op == Op::kGreater || r.op == Op::kLess) {
      if (auto n = parseInt(r.values.front())) {
        r.number = *n;
      } else {
        errs.push_back(invalid("values[0]", r.values.front(),
                               "for 'Gt', 'Lt' operators, the value must be an integer"));
      }
    }
    for (std::size_t i = 0; i < r.values.size(); ++i) {
      if (auto why = labelValueErrors(r.values[i]); !why.empty()) {
        errs.push_back(invalid("values[" + std::to_string(i) + "][" + r.key + "]", r.values[i],
                               joined(why, "; ")));
      }
    }
    if (errs.empty()) {
      return true;
    }
    error = aggregate(errs);
    return false;
  }

  Lexer lexer_;
  Item next_;
};

std::optional<LabelSelectorText> LabelSelectorText::parse(std::string_view text,
                                                          std::string& error) {
  LabelSelectorText selector;
  Parser parser(text);
  if (!parser.parse(selector.requirements_, error)) {
    return std::nullopt;
  }
  // Upstream sorts by key so that the same requirements give the same selector.
  std::stable_sort(selector.requirements_.begin(), selector.requirements_.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  return selector;
}

bool LabelSelectorText::matches(const sh_label* labels, std::size_t count) const {
  auto lookup = [&](std::string_view key) -> std::optional<std::string_view> {
    for (std::size_t i = 0; i < count; ++i) {
      std::string_view k(labels[i].key_str.ptr, labels[i].key_str.len);
      if (k == key) {
        return std::string_view(labels[i].value_str.ptr, labels[i].value_str.len);
      }
    }
    return std::nullopt;
  };
  auto holds = [](const Requirement& r, std::string_view v) {
    return std::binary_search(r.values.begin(), r.values.end(), v);
  };
  for (const Requirement& r : requirements_) {
    std::optional<std::string_view> value = lookup(r.key);
    bool ok = false;
    switch (r.op) {
      case Op::kEquals:
      case Op::kDoubleEquals:
      case Op::kIn:
        ok = value && holds(r, *value);
        break;
      case Op::kNotEquals:
      case Op::kNotIn:
        ok = !value || !holds(r, *value);
        break;
      case Op::kExists:
        ok = value.has_value();
        break;
      case Op::kDoesNotExist:
        ok = !value;
        break;
      case Op::kGreater:
      case Op::kLess: {
        std::optional<int64_t> n = value ? parseInt(*value) : std::nullopt;
        ok = n && (r.op == Op::kGreater ? *n > r.number : *n < r.number);
        break;
      }
    }
    if (!ok) {
      return false;
    }
  }
  return true;
}

std::string LabelSelectorText::text() const {
  std::vector<std::string> parts;
  parts.reserve(requirements_.size());
  for (const Requirement& r : requirements_) {
    std::string s = r.op == Op::kDoesNotExist ? "!" + r.key : r.key;
    switch (r.op) {
      case Op::kExists:
      case Op::kDoesNotExist:
        parts.push_back(std::move(s));
        continue;
      case Op::kEquals:
        s += "=";
        break;
      case Op::kDoubleEquals:
        s += "==";
        break;
      case Op::kNotEquals:
        s += "!=";
        break;
      case Op::kIn:
        s += " in (";
        break;
      case Op::kNotIn:
        s += " notin (";
        break;
      case Op::kGreater:
        s += ">";
        break;
      case Op::kLess:
        s += "<";
        break;
    }
    s += joined(r.values, ",");
    if (r.op == Op::kIn || r.op == Op::kNotIn) {
      s += ")";
    }
    parts.push_back(std::move(s));
  }
  return joined(parts, ",");
}

// ---------------------------------------------------------------------------------------
// FieldSelectorText: upstream's parseSelector with the identity transform.

std::optional<FieldSelectorText> FieldSelectorText::parse(std::string_view text,
                                                          std::string& error) {
  std::vector<std::string_view> terms = splitTerms(text);
  // Upstream sorts the raw terms, which fixes both the text and which bad term is reported.
  std::sort(terms.begin(), terms.end());
  FieldSelectorText selector;
  for (std::string_view term : terms) {
    std::string_view lhs;
    std::string_view op;
    std::string_view rhs;
    if (!splitTerm(term, lhs, op, rhs)) {
      error = "invalid selector: '" + shown(text) + "'; can't understand '" + shown(term) + "'";
      return std::nullopt;
    }
    std::optional<std::string> value = unescapeValue(rhs, error);
    if (!value) {
      return std::nullopt;
    }
    // An empty field with an empty value selects everything, and upstream drops it.
    if (lhs.empty() && value->empty()) {
      continue;
    }
    selector.requirements_.push_back({std::string(lhs), op != "!=", std::move(*value)});
  }
  return selector;
}

bool FieldSelectorText::matches(const boost::json::value& object) const {
  return std::all_of(requirements_.begin(), requirements_.end(), [&](const Requirement& r) {
    return (fieldText(lookupPath(object, r.path)) == r.value) == r.equals;
  });
}

std::string FieldSelectorText::text() const {
  std::vector<std::string> parts;
  parts.reserve(requirements_.size());
  for (const Requirement& r : requirements_) {
    parts.push_back(r.path + (r.equals ? "=" : "!=") + escapeValue(r.value));
  }
  return joined(parts, ",");
}

}  // namespace sh::connectors
