#include "host/model/lazy_manifest.h"

#include <boost/json/parse.hpp>

#include "host/common/limits.h"

namespace sh::model {

const boost::json::value& LazyManifest::get(const std::function<const std::string&()>& text) const {
  std::call_once(once_, [&] {
    boost::json::parse_options options;
    options.max_depth = limits::kMaxJsonDepth;
    boost::system::error_code ec;
    boost::json::value tree = boost::json::parse(text(), ec, {}, options);
    tree_ = std::make_unique<boost::json::value>(ec ? boost::json::value() : std::move(tree));
  });
  return *tree_;
}

}  // namespace sh::model
