#include "host/cli/json_print.h"

#include <boost/json.hpp>

namespace sh::cli {

void printPretty(std::ostream& os, const boost::json::value& v, int indent) {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  const std::string close(static_cast<std::size_t>(indent), ' ');
  if (v.is_object()) {
    const auto& o = v.get_object();
    if (o.empty()) {
      os << "{}";
      return;
    }
    os << "{\n";
    bool first = true;
    for (const auto& kv : o) {
      if (!first) {
        os << ",\n";
      }
      first = false;
      os << pad << boost::json::serialize(boost::json::value(kv.key())) << ": ";
      printPretty(os, kv.value(), indent + 2);
    }
    os << "\n" << close << "}";
  } else if (v.is_array()) {
    const auto& a = v.get_array();
    if (a.empty()) {
      os << "[]";
      return;
    }
    os << "[\n";
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (i > 0) {
        os << ",\n";
      }
      os << pad;
      printPretty(os, a[i], indent + 2);
    }
    os << "\n" << close << "]";
  } else {
    os << boost::json::serialize(v);
  }
}

}  // namespace sh::cli
