// Field readers shared by the Pod and Node parsers: string maps (labels), string lists,
// quantities and ResourceLists, timestamps and taint effects. Each reports malformed input
// through the cursor's ParseContext and returns a neutral value.
#ifndef SCHEDHOST_HOST_MODEL_FIELD_PARSERS_H
#define SCHEDHOST_HOST_MODEL_FIELD_PARSERS_H

#include <schedhost/plugin.h>

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/model/arena.h"
#include "host/model/json_cursor.h"
#include "host/model/quantity.h"
#include "host/model/resource_list.h"

namespace sh::model {

inline std::string_view sv(sh_str s) { return {s.ptr, s.len}; }

// A map[string]string (labels, nodeSelector, matchLabels), interned, sorted by key id.
std::vector<sh_label> parseStringMap(const Cursor& c);
// A []string copied into `arena`.
std::vector<sh_str> parseStringList(const Cursor& c, Arena& arena);
// A []string, interned.
std::vector<sh_id> parseInternedList(const Cursor& c);

// Whether `v` holds a number that is not finite, with its dotted path in `path`. A number
// beyond a double's range (1e999) parses as infinity, which JSON text cannot carry: a manifest
// holding one would not parse again once written out, so the parsers refuse it.
bool findNonFinite(const boost::json::value& v, std::string& path);
// "PATH: number out of range ..." for the path findNonFinite found ("OBJECT" when empty).
std::string nonFiniteMessage(const std::string& path, std::string_view object);

// A Quantity as Quantity.UnmarshalJSON reads it: a string (surrounding spaces trimmed) or a
// bare JSON number; null reads as zero. nullopt (and an error) when malformed.
std::optional<Quantity> parseQuantityField(const Cursor& c);
// A v1.ResourceList of non-negative quantities ("must be non-negative" otherwise).
ResourceList parseResourceList(const Cursor& c);

// A metav1.Time as unix nanos; 0 when absent or empty.
int64_t parseTimeField(const Cursor& c);

// A taint effect: NoSchedule, PreferNoSchedule or NoExecute; "" (and absent) only when
// `allow_empty`, giving SH_EFFECT_NONE.
sh_taint_effect parseTaintEffect(const Cursor& c, bool allowEmpty);

// Reports `unsupported value "<v>"; supported values: <list>`.
void failUnsupported(const Cursor& c, std::string_view value, std::string_view supported);

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_FIELD_PARSERS_H
