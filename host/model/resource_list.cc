#include "host/model/resource_list.h"

#include <algorithm>

#include "host/model/interner.h"

namespace sh::model {
namespace {

bool startsWith(std::string_view s, std::string_view prefix) { return s.starts_with(prefix); }

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool lowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// validation.IsDNS1123Subdomain.
bool isDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) {
    return false;
  }
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !lowerAlnum(label.front()) || !lowerAlnum(label.back())) {
      return false;
    }
    for (char c : label) {
      if (!lowerAlnum(c) && c != '-') {
        return false;
      }
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    start = dot + 1;
  }
}

// validation.IsQualifiedName: [prefix/]name, name <= 63 chars of [-A-Za-z0-9_.] with
// alphanumeric ends, prefix a DNS-1123 subdomain.
bool isQualifiedName(std::string_view s) {
  std::string_view name = s;
  std::size_t slash = s.find('/');
  if (slash != std::string_view::npos) {
    if (s.find('/', slash + 1) != std::string_view::npos) {
      return false;
    }
    if (!isDns1123Subdomain(s.substr(0, slash))) {
      return false;
    }
    name = s.substr(slash + 1);
  }
  if (name.empty() || name.size() > 63 || !alnum(name.front()) || !alnum(name.back())) {
    return false;
  }
  for (char c : name) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

}  // namespace

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

bool isHugepagesResource(std::string_view name) { return startsWith(name, "hugepages-"); }

bool isNativeResource(std::string_view name) {
  return name.find('/') == std::string_view::npos ||
         name.find("kubernetes.io/") != std::string_view::npos;
}

bool isExtendedResource(std::string_view name) {
  if (isNativeResource(name) || startsWith(name, "requests.")) {
    return false;
  }
  std::string quotaName = "requests.";
  quotaName += name;
  return isQualifiedName(quotaName);
}

bool isScalarResource(std::string_view name) {
  return isExtendedResource(name) || isHugepagesResource(name) ||
         name.find("kubernetes.io/") != std::string_view::npos ||
         startsWith(name, "attachable-volumes-");
}

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
