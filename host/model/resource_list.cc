#include "host/model/resource_list.h"

#include <schedhost/helpers/names.hpp>

#include <algorithm>

#include "host/model/interner.h"

namespace sh::model {
std::vector<ResourceList::Entry>::iterator ResourceList::lowerBound(sh_id name) {
  return std::lower_bound(entries_.begin(), entries_.end(), name,
                          [](const Entry& e, sh_id n) { return e.name < n; });
}

const int128_t* ResourceList::find(sh_id name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, sh_id n) { return e.name < n; });
  return it != entries_.end() && it->name == name ? &it->milli : nullptr;
}

void ResourceList::set(sh_id name, int128_t milli) {
  auto it = lowerBound(name);
  if (it != entries_.end() && it->name == name) {
    it->milli = milli;
  } else {
    entries_.insert(it, Entry{name, milli});
  }
}

void ResourceList::add(sh_id name, int128_t milli) {
  auto it = lowerBound(name);
  if (it != entries_.end() && it->name == name) {
    it->milli += milli;
  } else {
    entries_.insert(it, Entry{name, milli});
  }
}

void ResourceList::add(const ResourceList& other) {
  for (const Entry& e : other.entries_) {
    add(e.name, e.milli);
  }
}

void ResourceList::maxWith(const ResourceList& other) {
  for (const Entry& e : other.entries_) {
    auto it = lowerBound(e.name);
    if (it != entries_.end() && it->name == e.name) {
      it->milli = std::max(it->milli, e.milli);
    } else {
      entries_.insert(it, e);
    }
  }
}

bool isHugepagesResource(std::string_view name) { return name.starts_with("hugepages-"); }

// The name rules are the SDK's (schedhost/helpers/names.hpp), so the host and the plugins
// classify resources alike.
bool isNativeResource(std::string_view name) { return schedhost::isNativeResourceName(name); }

bool isExtendedResource(std::string_view name) { return schedhost::isExtendedResourceName(name); }

bool isScalarResource(std::string_view name) { return schedhost::isScalarResourceName(name); }

bool isSupportedPodLevelResource(std::string_view name) {
  return name == "cpu" || name == "memory" || isHugepagesResource(name);
}

bool isOvercommitAllowed(std::string_view name) {
  return isNativeResource(name) && !isHugepagesResource(name);
}

int64_t milliToUnits(int128_t milli) {
  int128_t units = milli < 0 ? -((-milli + 999) / 1000) : (milli + 999) / 1000;
  return saturateInt64(units);
}

ResourceValues toResourceValues(const ResourceList& list, bool withPods) {
  ResourceValues out;
  for (const auto& e : list) {
    switch (e.name) {
      case SH_ID_CPU:
        out.milliCpu = saturateInt64(e.milli);
        break;
      case SH_ID_MEMORY:
        out.memory = milliToUnits(e.milli);
        break;
      case SH_ID_EPHEMERAL_STORAGE:
        out.ephemeralStorage = milliToUnits(e.milli);
        break;
      case SH_ID_PODS:
        if (withPods) {
          out.allowedPodNumber = milliToUnits(e.milli);
        }
        break;
      default:
        if (isScalarResource(interner().view(e.name))) {
          out.scalars.push_back(sh_quantity{e.name, milliToUnits(e.milli)});
        }
        break;
    }
  }
  return out;
}

}  // namespace sh::model
