// Indented JSON output for people (Boost.JSON only prints compactly).
#pragma once

#include <ostream>

#include <boost/json/value.hpp>

namespace sh::cli {

void printPretty(std::ostream& os, const boost::json::value& v, int indent = 0);

}  // namespace sh::cli
