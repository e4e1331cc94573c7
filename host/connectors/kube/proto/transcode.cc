#include "host/connectors/kube/proto/transcode.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "host/connectors/kube/proto/schema.h"
#include "host/connectors/kube/proto/wire.h"
#include "host/connectors/kube/rest_config.h"

namespace sh::kube::proto {

namespace {

namespace json = boost::json;

constexpr std::string_view kMagic{"k8s\0", 4};
constexpr int kMaxDepth = 100;
constexpr int64_t kNanosPerSecond = 1'000'000'000;

std::string_view wireName(WireType type) {
  switch (type) {
    case WireType::kVarint:
      return "varint";
    case WireType::kFixed64:
      return "fixed64";
    case WireType::kBytes:
      return "bytes";
    case WireType::kFixed32:
      return "fixed32";
  }
  return "?";
}

// Days since 1970-01-01 to a civil date (Howard Hinnant's days_from_civil, inverted): int64
// seconds, so a time outside std::chrono::system_clock's range still formats.
void civilFromDays(int64_t days, int64_t& year, unsigned& month, unsigned& day) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  day = doy - (153 * mp + 2) / 5 + 1;
  month = mp < 10 ? mp + 3 : mp - 9;
  year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
}

// A civil date to days since 1970-01-01 (Howard Hinnant's days_from_civil).
int64_t daysFromCivil(int64_t year, unsigned month, unsigned day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto yoe = static_cast<unsigned>(year - era * 400);
  const unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// RFC 3339 ("2026-11-25T10:00:00Z", "2026-11-25T12:00:00.5+02:00") to seconds and nanoseconds
// since the epoch, over the whole range of four-digit years.
bool parseTime(std::string_view text, int64_t& seconds, int64_t& nanos) {
  auto digits = [&](std::size_t at, std::size_t count, int64_t& out) {
    if (at + count > text.size()) {
      return false;
    }
    out = 0;
    for (std::size_t i = at; i < at + count; ++i) {
      if (text[i] < '0' || text[i] > '9') {
        return false;
      }
      out = out * 10 + (text[i] - '0');
    }
    return true;
  };
  int64_t year = 0;
  int64_t month = 0;
  int64_t day = 0;
  int64_t hour = 0;
  int64_t minute = 0;
  int64_t second = 0;
  if (text.size() < 20 || !digits(0, 4, year) || text[4] != '-' || !digits(5, 2, month) ||
      text[7] != '-' || !digits(8, 2, day) || (text[10] != 'T' && text[10] != 't') ||
      !digits(11, 2, hour) || text[13] != ':' || !digits(14, 2, minute) || text[16] != ':' ||
      !digits(17, 2, second) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 60) {
    return false;
  }
  std::size_t at = 19;
  nanos = 0;
  if (text[at] == '.') {
    std::size_t count = 0;
    for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, ++count) {
      if (count < 9) {
        nanos = nanos * 10 + (text[at] - '0');
      }
    }
    if (count == 0) {
      return false;
    }
    for (; count < 9; ++count) {
      nanos *= 10;
    }
  }
  int64_t offset = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int64_t offsetHours = 0;
    int64_t offsetMinutes = 0;
    if (!digits(at + 1, 2, offsetHours) || at + 3 >= text.size() || text[at + 3] != ':' ||
        !digits(at + 4, 2, offsetMinutes)) {
      return false;
    }
    offset = (offsetHours * 3600 + offsetMinutes * 60) * (text[at] == '-' ? -1 : 1);
    at += 6;
  } else {
    return false;
  }
  if (at != text.size()) {
    return false;
  }
  seconds = daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 +
            hour * 3600 + minute * 60 + second - offset;
  return true;
}

// "2026-11-25T10:00:00Z", or with six fractional digits for a MicroTime.
std::string formatTime(int64_t seconds, int64_t nanos, bool micro) {
  int64_t days = seconds / 86400;
  int64_t rest = seconds % 86400;
  if (rest < 0) {
    rest += 86400;
    --days;
  }
  int64_t year = 0;
  unsigned month = 0;
  unsigned day = 0;
  civilFromDays(days, year, month, day);
  char buffer[64];
  const int hour = static_cast<int>(rest / 3600);
  const int minute = static_cast<int>(rest / 60 % 60);
  const int second = static_cast<int>(rest % 60);
  int n = 0;
  if (micro) {
    n = std::snprintf(buffer, sizeof buffer, "%04lld-%02u-%02uT%02d:%02d:%02d.%06lldZ",
                      static_cast<long long>(year), month, day, hour, minute, second,
                      static_cast<long long>(nanos / 1000));
  } else {
    n = std::snprintf(buffer, sizeof buffer, "%04lld-%02u-%02uT%02d:%02d:%02dZ",
                      static_cast<long long>(year), month, day, hour, minute, second);
  }
  return std::string(buffer, static_cast<std::size_t>(std::max(n, 0)));
}

bool isZero(const json::value& value) {
  switch (value.kind()) {
    case json::kind::string:
      return value.get_string().empty();
    case json::kind::bool_:
      return !value.get_bool();
    case json::kind::int64:
      return value.get_int64() == 0;
    case json::kind::uint64:
      return value.get_uint64() == 0;
    case json::kind::double_:
      return value.get_double() == 0;
    default:
      return false;
  }
}

class Decoder {
 public:
  explicit Decoder(const json::storage_ptr& storage) : storage_(storage) {}

  std::string error;

  bool message(std::string_view bytes, const ProtoMessage& type, json::object& out, int depth) {
    if (depth > kMaxDepth) {
      return fail(type, "nested deeper than " + std::to_string(kMaxDepth) + " messages");
    }
    const std::span<const ProtoField> fields = fieldsOf(type);
    Reader reader(bytes);
    uint32_t number = 0;
    WireType wire{};
    std::size_t hint = 0;
    while (reader.tag(number, wire)) {
      const ProtoField* field = nullptr;
      if (hint < fields.size() && fields[hint].number == number) {
        field = &fields[hint];
      } else {
        auto it = std::lower_bound(fields.begin(), fields.end(), number,
                                   [](const ProtoField& f, uint32_t n) { return f.number < n; });
        if (it != fields.end() && it->number == number) {
          field = &*it;
        }
      }
      if (field == nullptr) {
        reader.skip(wire);  // a field this schema does not know
        continue;
      }
      hint = static_cast<std::size_t>(field - fields.data()) + 1;
      if (!this->field(reader, wire, *field, out, depth)) {
        if (error.empty()) {
          fail(type, "field " + std::to_string(number) + " (" + std::string(field->json) +
                         "): malformed");
        }
        return false;
      }
    }
    if (!reader.ok()) {
      return fail(type, "truncated or malformed");
    }
    return true;
  }

 private:
  bool fail(const ProtoMessage& type, std::string why) {
    if (error.empty()) {
      error = std::string(type.package) + " " + std::string(type.name) + ": " + std::move(why);
    }
    return false;
  }

  bool field(Reader& reader, WireType wire, const ProtoField& field, json::object& out, int depth) {
    if ((field.flags & kInline) != 0) {
      if (wire != WireType::kBytes || field.message < 0) {
        return false;
      }
      const std::string_view bytes = reader.bytes();
      return reader.ok() && message(bytes, messageOf(field), out, depth + 1);
    }
    if ((field.flags & kMap) != 0) {
      if (wire != WireType::kBytes) {
        return false;
      }
      Reader entry(reader.bytes());
      if (!reader.ok()) {
        return false;
      }
      std::string_view key;
      json::value value(storage_);
      bool hasValue = false;
      uint32_t number = 0;
      WireType entryWire{};
      while (entry.tag(number, entryWire)) {
        if (number == 1 && entryWire == WireType::kBytes) {
          key = entry.bytes();
        } else if (number == 2) {
          if (!single(entry, entryWire, field, value, depth)) {
            return false;
          }
          hasValue = true;
        } else {
          entry.skip(entryWire);
        }
      }
      if (!entry.ok()) {
        return false;
      }
      if (!hasValue) {
        value = zeroOf(field);
      }
      json::value& map = out[field.json];
      if (!map.is_object()) {
        map = json::object(storage_);
      }
      map.get_object()[key] = std::move(value);
      return true;
    }
    if ((field.flags & kRepeated) != 0) {
      json::value& list = out[field.json];
      if (!list.is_array()) {
        list = json::array(storage_);
      }
      json::array& items = list.get_array();
      const bool scalar = field.kind == FieldKind::kBool || field.kind == FieldKind::kInt32 ||
                          field.kind == FieldKind::kInt64 || field.kind == FieldKind::kUint64 ||
                          field.kind == FieldKind::kDouble;
      if (scalar && wire == WireType::kBytes) {
        // Packed: the values one after another in one length-delimited field.
        Reader packed(reader.bytes());
        if (!reader.ok()) {
          return false;
        }
        if (packed.done() && items.empty()) {
          // No values: the slice stays nil, as gogo's Unmarshal leaves it, and so absent.
          out.erase(field.json);
          return true;
        }
        const WireType each =
            field.kind == FieldKind::kDouble ? WireType::kFixed64 : WireType::kVarint;
        while (!packed.done()) {
          json::value value(storage_);
          if (!single(packed, each, field, value, depth) || !packed.ok()) {
            return false;
          }
          items.push_back(std::move(value));
        }
        return true;
      }
      json::value value(storage_);
      if (!single(reader, wire, field, value, depth)) {
        return false;
      }
      items.push_back(std::move(value));
      return true;
    }
    if (field.kind == FieldKind::kMessage && wire == WireType::kBytes) {
      // A message field seen again merges into the first, as protobuf (and gogo's Unmarshal
      // into the same struct) does.
      if (json::value* seen = out.if_contains(field.json); seen != nullptr && seen->is_object()) {
        const std::string_view bytes = reader.bytes();
        return reader.ok() && message(bytes, messageOf(field), seen->get_object(), depth + 1);
      }
    }
    json::value value(storage_);
    if (!single(reader, wire, field, value, depth)) {
      return false;
    }
    if (value.is_null() ||
        ((field.flags & kOmitEmpty) != 0 && (field.flags & kPointer) == 0 && isZero(value))) {
      out.erase(field.json);
      return true;
    }
    out[field.json] = std::move(value);
    return true;
  }

  json::value zeroOf(const ProtoField& field) {
    switch (field.kind) {
      case FieldKind::kString:
      case FieldKind::kBytes:
        return json::string(storage_);
      case FieldKind::kBool:
        return false;
      case FieldKind::kQuantity:
        return json::string("0", storage_);
      case FieldKind::kMessage:
        return json::object(storage_);
      default:
        return 0;
    }
  }

  bool expect(WireType wire, WireType wanted, const ProtoField& field) {
    if (wire == wanted) {
      return true;
    }
    error = "field " + std::to_string(field.number) + " (" + std::string(field.json) +
            "): wire type " + std::string(wireName(wire)) + " where " +
            std::string(wireName(wanted)) + " belongs";
    return false;
  }

  // One value of `field` (one element of a repeated field, the value of a map entry).
  bool single(Reader& reader, WireType wire, const ProtoField& field, json::value& out, int depth) {
    switch (field.kind) {
      case FieldKind::kString: {
        if (!expect(wire, WireType::kBytes, field)) {
          return false;
        }
        const std::string_view bytes = reader.bytes();
        out = json::string(bytes, storage_);
        return reader.ok();
      }
      case FieldKind::kBytes: {
        if (!expect(wire, WireType::kBytes, field)) {
          return false;
        }
        const std::string_view bytes = reader.bytes();
        out = json::string(encodeBase64(bytes), storage_);
        return reader.ok();
      }
      case FieldKind::kBool:
        if (!expect(wire, WireType::kVarint, field)) {
          return false;
        }
        out = reader.varint() != 0;
        return reader.ok();
      case FieldKind::kInt32:
        if (!expect(wire, WireType::kVarint, field)) {
          return false;
        }
        out = static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(reader.varint())));
        return reader.ok();
      case FieldKind::kInt64:
        if (!expect(wire, WireType::kVarint, field)) {
          return false;
        }
        out = static_cast<int64_t>(reader.varint());
        return reader.ok();
      case FieldKind::kUint64:
        if (!expect(wire, WireType::kVarint, field)) {
          return false;
        }
        out = reader.varint();
        return reader.ok();
      case FieldKind::kDouble:
        if (!expect(wire, WireType::kFixed64, field)) {
          return false;
        }
        out = std::bit_cast<double>(reader.fixed64());
        return reader.ok();
      case FieldKind::kMessage: {
        if (!expect(wire, WireType::kBytes, field) || field.message < 0) {
          return false;
        }
        const std::string_view bytes = reader.bytes();
        if (!reader.ok()) {
          return false;
        }
        json::object object(storage_);
        if (!message(bytes, messageOf(field), object, depth + 1)) {
          return false;
        }
        out = std::move(object);
        return true;
      }
      case FieldKind::kTime:
      case FieldKind::kMicroTime:
      case FieldKind::kQuantity:
      case FieldKind::kIntOrString:
      case FieldKind::kRawJson: {
        if (!expect(wire, WireType::kBytes, field)) {
          return false;
        }
        const std::string_view bytes = reader.bytes();
        return reader.ok() && special(bytes, field, out);
      }
    }
    return false;
  }

  // The types with a JSON form of their own.
  bool special(std::string_view bytes, const ProtoField& field, json::value& out) {
    Reader reader(bytes);
    uint32_t number = 0;
    WireType wire{};
    int64_t ints[4] = {0, 0, 0, 0};
    std::string_view texts[4];
    while (reader.tag(number, wire)) {
      if (number < 4 && wire == WireType::kVarint) {
        ints[number] = static_cast<int64_t>(reader.varint());
      } else if (number < 4 && wire == WireType::kBytes) {
        texts[number] = reader.bytes();
      } else {
        reader.skip(wire);
      }
    }
    if (!reader.ok()) {
      return false;
    }
    switch (field.kind) {
      case FieldKind::kTime:
      case FieldKind::kMicroTime:
        // metav1.Time writes nothing for the zero time (time_proto.go MarshalTo); JSON has
        // null for it.
        if (bytes.empty()) {
          out = nullptr;
          return true;
        }
        {
          const int64_t nanos = static_cast<int32_t>(static_cast<uint32_t>(ints[2]));
          if (nanos < 0 || nanos >= kNanosPerSecond) {
            error = "field " + std::string(field.json) + ": nanos out of range";
            return false;
          }
          // Time reads back whole seconds (time_proto.go Unmarshal), as its JSON has.
          out = json::string(formatTime(ints[1], nanos, field.kind == FieldKind::kMicroTime),
                             storage_);
        }
        return true;
      case FieldKind::kQuantity:
        out = json::string(texts[1], storage_);
        return true;
      case FieldKind::kIntOrString:
        if (ints[1] == 1) {
          out = json::string(texts[3], storage_);
        } else {
          out = static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(ints[2])));
        }
        return true;
      case FieldKind::kRawJson: {
        if (texts[1].empty()) {
          out = nullptr;
          return true;
        }
        boost::system::error_code ec;
        out = json::parse(texts[1], ec, storage_);
        if (ec) {
          error = "field " + std::string(field.json) + ": raw bytes that are not JSON";
          return false;
        }
        return true;
      }
      default:
        return false;
    }
  }

  const json::storage_ptr& storage_;
};

class Encoder {
 public:
  std::string error;

  // `inlined`: `in` is the parent's object, of which `type` (a struct inlined in the parent's
  // type) takes only its own members.
  bool message(const json::object& in, const ProtoMessage& type, std::string& out, int depth,
               bool inlined = false) {
    if (depth > kMaxDepth) {
      return fail("nested deeper than " + std::to_string(kMaxDepth) + " objects");
    }
    // A member the type has no field for would be lost on the wire, where JSON would carry
    // it (a field newer than v1.36): refused, so the caller sends JSON instead. apiVersion and
    // kind are TypeMeta, which the protobuf envelope carries.
    for (const json::key_value_pair& member : in) {
      if (!inlined && member.key() != "apiVersion" && member.key() != "kind" &&
          !known(type, member.key())) {
        const std::size_t mark = path_.size();
        path_ += path_.empty() ? "" : ".";
        path_ += member.key();
        fail("no such field in the Kubernetes v1.36 type " + std::string(type.name));
        path_.resize(mark);
        return false;
      }
    }
    Writer writer(out);
    for (const ProtoField& field : fieldsOf(type)) {
      if ((field.flags & kInline) != 0) {
        std::string inner;
        if (!message(in, messageOf(field), inner, depth + 1, /*inlined=*/true)) {
          return false;
        }
        writer.bytesField(field.number, inner);
        continue;
      }
      const json::value* value = in.if_contains(field.json);
      if (value == nullptr || value->is_null()) {
        continue;
      }
      const std::size_t mark = path_.size();
      path_ += path_.empty() ? "" : ".";
      path_ += field.json;
      bool ok = true;
      if ((field.flags & kRepeated) != 0) {
        if (!value->is_array()) {
          return fail("not a list");
        }
        const json::array& items = value->get_array();
        for (std::size_t i = 0; ok && i < items.size(); ++i) {
          const std::size_t itemMark = path_.size();
          path_ += "[" + std::to_string(i) + "]";
          ok = one(items[i], field, writer, depth);
          if (ok) {
            path_.resize(itemMark);
          }
        }
      } else if ((field.flags & kMap) != 0) {
        if (!value->is_object()) {
          return fail("not an object");
        }
        std::vector<const json::key_value_pair*> entries;
        for (const json::key_value_pair& entry : value->get_object()) {
          entries.push_back(&entry);
        }
        // Sorted by key, as Go's marshalling writes a map.
        std::sort(entries.begin(), entries.end(),
                  [](const auto* a, const auto* b) { return a->key() < b->key(); });
        for (const json::key_value_pair* entry : entries) {
          std::string bytes;
          Writer entryWriter(bytes);
          entryWriter.bytesField(1, entry->key());
          const std::size_t entryMark = path_.size();
          path_ += "[" + std::string(entry->key()) + "]";
          ok = one(entry->value(), field, entryWriter, depth, 2);
          if (!ok) {
            break;
          }
          path_.resize(entryMark);
          writer.bytesField(field.number, bytes);
        }
      } else {
        ok = one(*value, field, writer, depth);
      }
      if (!ok) {
        return false;
      }
      path_.resize(mark);
    }
    return true;
  }

 private:
  bool fail(std::string why) {
    if (error.empty()) {
      error = (path_.empty() ? std::string("the object") : path_) + ": " + std::move(why);
    }
    return false;
  }

  // Whether `key` is a field of `type`, or of a struct inlined in it.
  static bool known(const ProtoMessage& type, std::string_view key) {
    for (const ProtoField& field : fieldsOf(type)) {
      if ((field.flags & kInline) != 0 ? known(messageOf(field), key) : field.json == key) {
        return true;
      }
    }
    return false;
  }

  static bool integer(const json::value& value, int64_t& out) {
    if (value.is_int64()) {
      out = value.get_int64();
      return true;
    }
    if (value.is_uint64() && value.get_uint64() <= static_cast<uint64_t>(INT64_MAX)) {
      out = static_cast<int64_t>(value.get_uint64());
      return true;
    }
    if (value.is_double() && std::trunc(value.get_double()) == value.get_double() &&
        std::fabs(value.get_double()) < 9.2e18) {
      out = static_cast<int64_t>(value.get_double());
      return true;
    }
    return false;
  }

  // One value of `field` as wire field `number` (the field's own; 2 in a map entry).
  bool one(const json::value& value, const ProtoField& field, Writer& writer, int depth,
           uint32_t number = 0) {
    if (number == 0) {
      number = field.number;
    }
    int64_t n = 0;
    switch (field.kind) {
      case FieldKind::kString:
        if (!value.is_string()) {
          return fail("not a string");
        }
        writer.bytesField(number, value.get_string());
        return true;
      case FieldKind::kBytes: {
        std::string bytes;
        if (!value.is_string() || !decodeBase64(value.get_string(), bytes)) {
          return fail("not base64");
        }
        writer.bytesField(number, bytes);
        return true;
      }
      case FieldKind::kBool:
        if (!value.is_bool()) {
          return fail("not a boolean");
        }
        writer.varintField(number, value.get_bool() ? 1 : 0);
        return true;
      case FieldKind::kInt32:
        if (!integer(value, n) || n < INT32_MIN || n > INT32_MAX) {
          return fail("not a 32-bit integer");
        }
        writer.varintField(number, static_cast<uint64_t>(n));
        return true;
      case FieldKind::kInt64:
        if (!integer(value, n)) {
          return fail("not an integer");
        }
        writer.varintField(number, static_cast<uint64_t>(n));
        return true;
      case FieldKind::kUint64:
        if (value.is_uint64()) {
          writer.varintField(number, value.get_uint64());
          return true;
        }
        if (!integer(value, n) || n < 0) {
          return fail("not an unsigned integer");
        }
        writer.varintField(number, static_cast<uint64_t>(n));
        return true;
      case FieldKind::kDouble:
        if (!value.is_number()) {
          return fail("not a number");
        }
        writer.fixed64Field(number, std::bit_cast<uint64_t>(value.to_number<double>()));
        return true;
      case FieldKind::kMessage: {
        if (!value.is_object()) {
          return fail("not an object");
        }
        std::string bytes;
        if (!message(value.get_object(), messageOf(field), bytes, depth + 1)) {
          return false;
        }
        writer.bytesField(number, bytes);
        return true;
      }
      case FieldKind::kTime:
      case FieldKind::kMicroTime: {
        int64_t seconds = 0;
        int64_t rest = 0;
        if (!value.is_string() || !parseTime(value.get_string(), seconds, rest)) {
          return fail("not an RFC 3339 time");
        }
        std::string bytes;
        Writer inner(bytes);
        inner.varintField(1, static_cast<uint64_t>(seconds));
        if (field.kind == FieldKind::kMicroTime && rest != 0) {
          inner.varintField(2, static_cast<uint64_t>(rest / 1000 * 1000));
        }
        writer.bytesField(number, bytes);
        return true;
      }
      case FieldKind::kQuantity: {
        std::string text;
        if (value.is_string()) {
          text = value.get_string();
        } else if (integer(value, n)) {
          text = std::to_string(n);
        } else {
          return fail("not a quantity");
        }
        std::string bytes;
        Writer(bytes).bytesField(1, text);
        writer.bytesField(number, bytes);
        return true;
      }
      case FieldKind::kIntOrString: {
        std::string bytes;
        Writer inner(bytes);
        if (value.is_string()) {
          inner.varintField(1, 1);
          inner.bytesField(3, value.get_string());
        } else if (integer(value, n) && n >= INT32_MIN && n <= INT32_MAX) {
          inner.varintField(1, 0);
          inner.varintField(2, static_cast<uint64_t>(n));
        } else {
          return fail("neither a 32-bit integer nor a string");
        }
        writer.bytesField(number, bytes);
        return true;
      }
      case FieldKind::kRawJson: {
        std::string bytes;
        Writer(bytes).bytesField(1, json::serialize(value));
        writer.bytesField(number, bytes);
        return true;
      }
    }
    return false;
  }

  std::string path_;
};

}  // namespace

bool isProtobuf(std::string_view contentType) {
  const std::size_t end = contentType.find(';');
  std::string_view type = contentType.substr(0, end);
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) {
    type.remove_suffix(1);
  }
  return type == kProtobufContentType;
}

bool decodeObject(std::string_view body, json::value& out, std::string& error,
                  const json::storage_ptr& storage) {
  if (body.substr(0, kMagic.size()) != kMagic) {
    error = "not a Kubernetes protobuf body: no \"k8s\\0\" prefix";
    return false;
  }
  Reader unknown(body.substr(kMagic.size()));
  std::string_view typeMeta;
  std::string_view raw;
  std::string_view encoding;
  uint32_t number = 0;
  WireType wire{};
  while (unknown.tag(number, wire)) {
    if (number == 1 && wire == WireType::kBytes) {
      typeMeta = unknown.bytes();
    } else if (number == 2 && wire == WireType::kBytes) {
      raw = unknown.bytes();
    } else if (number == 3 && wire == WireType::kBytes) {
      encoding = unknown.bytes();
    } else {
      unknown.skip(wire);
    }
  }
  std::string_view apiVersion;
  std::string_view kind;
  Reader meta(typeMeta);
  while (meta.tag(number, wire)) {
    if (number == 1 && wire == WireType::kBytes) {
      apiVersion = meta.bytes();
    } else if (number == 2 && wire == WireType::kBytes) {
      kind = meta.bytes();
    } else {
      meta.skip(wire);
    }
  }
  if (!unknown.ok() || !meta.ok()) {
    error = "a malformed protobuf envelope (runtime.Unknown)";
    return false;
  }
  if (!encoding.empty()) {
    error = "a protobuf body with content encoding \"" + std::string(encoding) +
            "\", which is not read here";
    return false;
  }
  const ProtoMessage* type = findKind(apiVersion, kind);
  if (type == nullptr) {
    error = "a protobuf body of kind " + std::string(apiVersion) + " " + std::string(kind) +
            ", which has no schema here";
    return false;
  }
  json::object object(storage);
  object.reserve(8);
  object["apiVersion"] = apiVersion;
  object["kind"] = kind;
  Decoder decoder(storage);
  if (!decoder.message(raw, *type, object, 0)) {
    error = std::move(decoder.error);
    return false;
  }
  out = std::move(object);
  return true;
}

bool encodeObject(const json::object& object, std::string_view apiVersion, std::string_view kind,
                  std::string& out, std::string& error) {
  const ProtoMessage* type = findKind(apiVersion, kind);
  if (type == nullptr) {
    error = std::string(apiVersion) + " " + std::string(kind) + " has no protobuf schema here";
    return false;
  }
  std::string raw;
  Encoder encoder;
  if (!encoder.message(object, *type, raw, 0)) {
    error = std::string(apiVersion) + " " + std::string(kind) + ": " + encoder.error;
    return false;
  }
  std::string typeMeta;
  Writer meta(typeMeta);
  meta.bytesField(1, apiVersion);
  meta.bytesField(2, kind);
  out.assign(kMagic);
  Writer writer(out);
  writer.bytesField(1, typeMeta);
  writer.bytesField(2, raw);
  return true;
}

bool decodeWatchEvent(std::string_view frame, std::string& type, json::value& object,
                      std::string& error, const json::storage_ptr& storage) {
  Reader reader(frame);
  std::string_view raw;
  bool hasObject = false;
  uint32_t number = 0;
  WireType wire{};
  type.clear();
  while (reader.tag(number, wire)) {
    if (number == 1 && wire == WireType::kBytes) {
      type = reader.bytes();
    } else if (number == 2 && wire == WireType::kBytes) {
      Reader extension(reader.bytes());
      while (extension.tag(number, wire)) {
        if (number == 1 && wire == WireType::kBytes) {
          raw = extension.bytes();
          hasObject = true;
        } else {
          extension.skip(wire);
        }
      }
      if (!extension.ok()) {
        reader.fail();
      }
    } else {
      reader.skip(wire);
    }
  }
  if (!reader.ok()) {
    error = "a malformed protobuf watch event";
    return false;
  }
  if (!hasObject) {
    error = "a watch event has no object";
    return false;
  }
  return decodeObject(raw, object, error, storage);
}

std::string encodeWatchFrame(std::string_view type, std::string_view objectBody) {
  std::string extension;
  Writer(extension).bytesField(1, objectBody);
  std::string event;
  Writer writer(event);
  writer.bytesField(1, type);
  writer.bytesField(2, extension);
  std::string frame;
  frame.reserve(4 + event.size());
  const auto length = static_cast<uint32_t>(event.size());
  for (int shift = 24; shift >= 0; shift -= 8) {
    frame += static_cast<char>((length >> shift) & 0xff);
  }
  frame += event;
  return frame;
}

}  // namespace sh::kube::proto
