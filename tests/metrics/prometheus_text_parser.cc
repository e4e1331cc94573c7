#include "tests/metrics/prometheus_text_parser.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>

namespace sh::metrics::testing {
namespace {

bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }

class LineParser {
 public:
  LineParser(std::string_view line, std::size_t number) : line_(line), number_(number) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("line " + std::to_string(number_) + ": " + what + ": \"" +
                             std::string(line_) + "\"");
  }
  bool atEnd() const { return pos_ >= line_.size(); }
  char peek() const { return atEnd() ? '\0' : line_[pos_]; }
  void expect(char c) {
    if (peek() != c) {
      fail(std::string("expected '") + c + "' at column " + std::to_string(pos_ + 1));
    }
    ++pos_;
  }
  std::string_view rest() const { return line_.substr(pos_); }
  void skip(std::size_t n) { pos_ += n; }

  // [a-zA-Z_:][a-zA-Z0-9_:]*
  std::string metricName() {
    std::size_t start = pos_;
    if (!(isNameStart(peek()) || peek() == ':')) {
      fail("expected a metric name");
    }
    while (isNameChar(peek()) || peek() == ':') {
      ++pos_;
    }
    return std::string(line_.substr(start, pos_ - start));
  }
  // [a-zA-Z_][a-zA-Z0-9_]*
  std::string labelName() {
    std::size_t start = pos_;
    if (!isNameStart(peek())) {
      fail("expected a label name");
    }
    while (isNameChar(peek())) {
      ++pos_;
    }
    return std::string(line_.substr(start, pos_ - start));
  }
  // "..." with \\, \" and \n as the only escapes.
  std::string quoted() {
    expect('"');
    std::string out;
    while (true) {
      if (atEnd()) {
        fail("unterminated label value");
      }
      char c = line_[pos_++];
      if (c == '"') {
        return out;
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (atEnd()) {
        fail("escape at end of line");
      }
      char e = line_[pos_++];
      if (e == '\\') {
        out += '\\';
      } else if (e == '"') {
        out += '"';
      } else if (e == 'n') {
        out += '\n';
      } else {
        fail(std::string("invalid escape \\") + e + " in label value");
      }
    }
  }
  // A token up to the next space or the end.
  std::string token() {
    std::size_t start = pos_;
    while (!atEnd() && peek() != ' ') {
      ++pos_;
    }
    if (start == pos_) {
      fail("expected a value");
    }
    return std::string(line_.substr(start, pos_ - start));
  }

 private:
  std::string_view line_;
  std::size_t number_;
  std::size_t pos_ = 0;
};

double parseValue(const std::string& t, const LineParser& p) {
  if (t == "+Inf" || t == "Inf") {
    return HUGE_VAL;
  }
  if (t == "-Inf") {
    return -HUGE_VAL;
  }
  if (t == "NaN") {
    return std::nan("");
  }
  for (char c : t) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
      p.fail("invalid number \"" + t + "\"");
    }
  }
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) {
    p.fail("invalid number \"" + t + "\"");
  }
  return v;
}

std::string unescapeHelp(std::string_view s, const LineParser& p) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (i + 1 >= s.size()) {
      p.fail("escape at end of HELP");
    }
    char e = s[++i];
    if (e == '\\') {
      out += '\\';
    } else if (e == 'n') {
      out += '\n';
    } else {
      p.fail(std::string("invalid escape \\") + e + " in HELP");
    }
  }
  return out;
}

// The family a sample named `name` belongs to, given the family's type.
bool belongsTo(const std::string& sample, const ParsedFamily& f) {
  if (sample == f.name) {
    return f.type != "histogram";
  }
  if (f.type == "histogram" || f.type == "summary") {
    for (std::string_view suffix : {"_bucket", "_sum", "_count"}) {
      if (suffix == "_bucket" && f.type == "summary") {
        continue;
      }
      if (sample.size() == f.name.size() + suffix.size() && sample.starts_with(f.name) &&
          std::string_view(sample).substr(f.name.size()) == suffix) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

std::string ParsedSample::label(std::string_view key) const {
  for (const auto& [k, v] : labels) {
    if (k == key) {
      return v;
    }
  }
  return "";
}

std::vector<ParsedFamily> parsePrometheusText(std::string_view text) {
  std::vector<ParsedFamily> out;
  std::map<std::string, std::size_t> index;
  std::set<std::string> closed;  // families whose samples ended
  if (!text.empty() && text.back() != '\n') {
    throw std::runtime_error("the exposition does not end with a newline");
  }
  std::size_t number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++number;
    LineParser p(line, number);
    if (line.empty()) {
      continue;
    }
    if (line[0] == '#') {
      std::string_view rest = line.substr(1);
      bool help = rest.starts_with(" HELP ");
      bool type = rest.starts_with(" TYPE ");
      if (!help && !type) {
        continue;  // a plain comment
      }
      p.skip(7);
      std::string name = p.metricName();
      auto it = index.find(name);
      if (it == index.end()) {
        if (!out.empty()) {
          closed.insert(out.back().name);
        }
        it = index.emplace(name, out.size()).first;
        out.push_back(ParsedFamily{name, "", "", false, {}});
      } else if (it->second + 1 != out.size() || closed.count(name) != 0) {
        p.fail("family " + name + " declared again after other families");
      }
      ParsedFamily& f = out[it->second];
      if (help) {
        if (f.hasHelp) {
          p.fail("second HELP for " + name);
        }
        if (p.atEnd()) {
          f.hasHelp = true;
          continue;
        }
        p.expect(' ');
        f.help = unescapeHelp(p.rest(), p);
        f.hasHelp = true;
      } else {
        if (!f.type.empty()) {
          p.fail("second TYPE for " + name);
        }
        if (!f.samples.empty()) {
          p.fail("TYPE for " + name + " after its samples");
        }
        p.expect(' ');
        std::string t(p.rest());
        if (t != "counter" && t != "gauge" && t != "histogram" && t != "summary" &&
            t != "untyped") {
          p.fail("unknown type \"" + t + "\"");
        }
        f.type = t;
      }
      continue;
    }
    ParsedSample s;
    s.name = p.metricName();
    if (p.peek() == '{') {
      p.expect('{');
      std::set<std::string> seen;
      while (p.peek() != '}') {
        std::string ln = p.labelName();
        if (ln.starts_with("__")) {
          p.fail("reserved label name " + ln);
        }
        if (!seen.insert(ln).second) {
          p.fail("duplicate label " + ln);
        }
        p.expect('=');
        std::string lv = p.quoted();
        s.labels.emplace_back(std::move(ln), std::move(lv));
        if (p.peek() == ',') {
          p.expect(',');
        } else if (p.peek() != '}') {
          p.fail("expected ',' or '}' after a label");
        }
      }
      p.expect('}');
    }
    p.expect(' ');
    s.valueText = p.token();
    s.value = parseValue(s.valueText, p);
    if (!p.atEnd()) {
      p.expect(' ');
      std::string ts = p.token();
      for (char c : ts) {
        if (!((c >= '0' && c <= '9') || c == '-')) {
          p.fail("invalid timestamp \"" + ts + "\"");
        }
      }
      if (!p.atEnd()) {
        p.fail("trailing text after the timestamp");
      }
    }
    if (out.empty() || !belongsTo(s.name, out.back())) {
      p.fail("sample " + s.name + " outside the HELP/TYPE of its family");
    }
    out.back().samples.push_back(std::move(s));
  }
  return out;
}

const ParsedSample* findSample(const std::vector<ParsedFamily>& families, std::string_view name,
                               const std::vector<std::pair<std::string, std::string>>& labels) {
  for (const auto& family : families) {
    for (const auto& sample : family.samples) {
      if (sample.name != name) continue;
      bool match = true;
      for (const auto& [key, value] : labels) {
        match = match && sample.label(key) == value;
      }
      if (match) return &sample;
    }
  }
  return nullptr;
}

}  // namespace sh::metrics::testing
