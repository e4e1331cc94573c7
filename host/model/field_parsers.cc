#include "host/model/field_parsers.h"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <cmath>

#include "host/model/interner.h"
#include "host/model/rfc3339.h"

namespace sh::model {
namespace {

std::string_view trimSpace(std::string_view s) {
  auto space = [](char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
  };
  while (!s.empty() && space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<Quantity> parseQuantityText(const Cursor& c, std::string_view text) {
  std::string why;
  std::optional<Quantity> q = parseQuantity(text, &why);
  if (!q) {
    std::string msg = "unable to parse quantity \"";
    msg.append(text.substr(0, 64));
    msg += text.size() > 64 ? "...\": " : "\": ";
    msg += why;
    c.fail(msg);
  }
  return q;
}

}  // namespace

std::vector<sh_label> parseStringMap(const Cursor& c) {
  std::vector<sh_label> out;
  c.members([&](std::string_view key, const Cursor& value) {
    // Go decodes a null map value as "".
    if (value.present() && !value.string()) {
      return;
    }
    Interner& in = interner();
    sh_id k = in.intern(key);
    sh_id val = in.intern(value.stringOr(""));
    out.push_back(sh_label{k, val, in.str(k), in.str(val)});
  });
  std::sort(out.begin(), out.end(),
            [](const sh_label& a, const sh_label& b) { return a.key < b.key; });
  return out;
}

std::vector<sh_str> parseStringList(const Cursor& c, Arena& arena) {
  std::vector<sh_str> out;
  c.each([&](const Cursor& item) {
    if (!item.present() || item.string()) {
      out.push_back(arena.str(item.stringOr("")));
    }
  });
  return out;
}

std::vector<sh_id> parseInternedList(const Cursor& c) {
  std::vector<sh_id> out;
  c.each([&](const Cursor& item) {
    if (!item.present() || item.string()) {
      out.push_back(intern(item.stringOr("")));
    }
  });
  return out;
}

std::optional<Quantity> parseQuantityField(const Cursor& c) {
  const boost::json::value* v = c.raw();
  if (v == nullptr) {
    return Quantity();
  }
  switch (v->kind()) {
    case boost::json::kind::string: {
      const auto& s = v->get_string();
      return parseQuantityText(c, trimSpace(std::string_view(s.data(), s.size())));
    }
    case boost::json::kind::int64:
      return Quantity::fromInt(v->get_int64());
    case boost::json::kind::uint64:
    case boost::json::kind::double_:
      // The JSON text of the number is what Quantity.UnmarshalJSON would parse.
      return parseQuantityText(c, boost::json::serialize(*v));
    default:
      c.fail("expected quantity (string or number), got " + std::string(jsonKindName(*v)));
      return std::nullopt;
  }
}

ResourceList parseResourceList(const Cursor& c) {
  ResourceList out;
  c.members([&](std::string_view name, const Cursor& value) {
    std::optional<Quantity> q = parseQuantityField(value);
    if (!q) {
      return;
    }
    if (q->negative()) {
      value.fail("must be non-negative");
      return;
    }
    // SetDefaults_ResourceList rounds every entry up to milli precision.
    out.set(intern(name), q->milliCeil());
  });
  return out;
}

int64_t parseTimeField(const Cursor& c) {
  std::optional<std::string_view> s = c.string();
  if (!s || s->empty()) {
    return 0;
  }
  std::optional<int64_t> t = parseRfc3339Nanos(*s);
  if (!t) {
    c.fail("invalid RFC 3339 time \"" + std::string(s->substr(0, 64)) + "\"");
    return 0;
  }
  return *t;
}

void failUnsupported(const Cursor& c, std::string_view value, std::string_view supported) {
  std::string msg = "unsupported value \"";
  msg.append(value.substr(0, 64));
  msg += "\"; supported values: ";
  msg += supported;
  c.fail(msg);
}

sh_taint_effect parseTaintEffect(const Cursor& c, bool allowEmpty) {
  std::string_view e = c.stringOr("");
  if (e == "NoSchedule") {
    return SH_EFFECT_NO_SCHEDULE;
  }
  if (e == "PreferNoSchedule") {
    return SH_EFFECT_PREFER_NO_SCHEDULE;
  }
  if (e == "NoExecute") {
    return SH_EFFECT_NO_EXECUTE;
  }
  if (e.empty()) {
    if (!allowEmpty) {
      c.fail("required");  // suppressed when the field already has a type error
    }
    return SH_EFFECT_NONE;
  }
  failUnsupported(c, e, "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
  return SH_EFFECT_NONE;
}

// Only the rare failing path builds the path.
bool findNonFinite(const boost::json::value& v, std::string& path) {
  if (v.is_double()) {
    return !std::isfinite(v.get_double());
  }
  if (const boost::json::object* o = v.if_object()) {
    for (const auto& member : *o) {
      if (findNonFinite(member.value(), path)) {
        const std::string key(member.key());
        path = path.empty() ? key : key + (path.front() == '[' ? "" : ".") + path;
        return true;
      }
    }
  } else if (const boost::json::array* a = v.if_array()) {
    for (std::size_t i = 0; i < a->size(); ++i) {
      if (findNonFinite((*a)[i], path)) {
        const std::string index = "[" + std::to_string(i) + "]";
        path = path.empty() ? index : index + (path.front() == '[' ? "" : ".") + path;
        return true;
      }
    }
  }
  return false;
}

std::string nonFiniteMessage(const std::string& path, std::string_view object) {
  return (path.empty() ? std::string(object) : path) +
         ": number out of range (beyond a double's range, as 1e999)";
}

}  // namespace sh::model
