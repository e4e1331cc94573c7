// Reading one member of a Kubernetes object's JSON without throwing: what is absent or of
// another type reads as empty.
#pragma once

#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace sh::kube {

// The member `key` of `o` when it is a string, else "".
inline std::string_view stringAt(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

// The member `key` of `o` when it is an object, else null.
inline const boost::json::object* objectAt(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

}  // namespace sh::kube
