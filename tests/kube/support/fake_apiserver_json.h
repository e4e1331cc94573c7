// The JSON pieces of the test API server (fake_apiserver.h) that need no server: field and
// label selectors as kube-apiserver reads them, JSON merge patch (RFC 7386) and the strategic
// merge patch subset a scheduler sends, and the Status bodies every error carries.
//
//   Field selectors: comma-joined terms `a.b.c=v`, `a.b.c==v`, `a.b.c!=v` over dotted JSON
//   paths (apimachinery `fields.ParseSelector`); a missing field compares as "", a number or a
//   boolean as its JSON text.
//   Label selectors: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`
//   (apimachinery `labels.Parse`), all terms must hold.
//   Strategic merge patch: maps merge recursively, `null` deletes a key, lists listed in
//   `kStrategicMergeKeys` (status.conditions by `type`, containers by `name`, ...) merge by
//   their key, other lists are replaced (apimachinery `strategicpatch.StrategicMergePatch`
//   without the `$patch` directives).
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sh::kubetest {

class Selector {
 public:
  // Throws std::invalid_argument with the offending term.
  static Selector parseFields(std::string_view text);
  static Selector parseLabels(std::string_view text);

  bool empty() const { return terms_.empty(); }
  bool matches(const boost::json::object& object) const;

 private:
  enum class Op { kEquals, kNotEquals, kExists, kNotExists, kIn, kNotIn };
  struct Term {
    std::vector<std::string> path;  // fields: the dotted path; labels: {key}
    Op op = Op::kEquals;
    std::vector<std::string> values;
  };
  bool labels_ = false;
  std::vector<Term> terms_;
};

// The value at a dotted path as a field selector sees it ("" when missing).
std::string fieldValue(const boost::json::object& object, const std::vector<std::string>& path);

// RFC 7386 JSON merge patch of `target` by `patch`.
boost::json::value mergePatch(const boost::json::value& target, const boost::json::value& patch);

// Strategic merge patch of `target` by `patch` (see the top of this file).
boost::json::value strategicMergePatch(const boost::json::value& target,
                                       const boost::json::value& patch);

// A Status body as kube-apiserver writes it:
// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":...,
//  "reason":...,"details":{...},"code":...}. `details` is left out when null.
boost::json::object statusBody(int code, std::string_view reason, std::string_view message,
                               const boost::json::value& details = nullptr);

// The reason kube-apiserver gives with an HTTP status ("NotFound", "Conflict", ...).
std::string_view reasonFor(int code);

// The string at a dotted path, "" when missing or not a string.
std::string stringAt(const boost::json::object& object,
                     std::initializer_list<std::string_view> path);

}  // namespace sh::kubetest
