#include "host/model/resource_list.h"

#include <algorithm>

#include "host/model/interner.h"

namespace sh::model {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.starts_with(prefix); }

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// validation.IsDNS1123Subdomain.
bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) {
    return false;
  }
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !lower_alnum(label.front()) || !lower_alnum(label.back())) {
      return false;
    }
    for (char c : label) {
      if (!lower_alnum(c) && c != '-') {
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
bool is_qualified_name(std::string_view s) {
  std::string_view name = s;
  std::size_t slash = s.find('/');
  if (slash != std::string_view::npos) {
    if (s.find('/', slash + 1) != std::string_view::npos) {
      return false;
    }
    if (!is_dns1123_subdomain(s.substr(0, slash))) {
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

std::vector<ResourceList::Entry>::iterator ResourceList::lower_bound(sh_id name) {
  return std::lower_bound(entries_.begin(), entries_.end(), name,
                          [](const Entry& e, sh_id n) { return e.name < n; });
}

const int128_t* ResourceList::find(sh_id name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, sh_id n) { return e.name < n; });
  return it != entries_.end() && it->name == name ? &it->milli : nullptr;
}

void ResourceList::set(sh_id name, int128_t milli) {
  auto it = lower_bound(name);
  if (it != entries_.end() && it->name == name) {
    it->milli = milli;
  } else {
    entries_.insert(it, Entry{name, milli});
  }
}

void ResourceList::add(sh_id name, int128_t milli) {
  auto it = lower_bound(name);
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

void ResourceList::max_with(const ResourceList& other) {
  for (const Entry& e : other.entries_) {
    auto it = lower_bound(e.name);
    if (it != entries_.end() && it->name == e.name) {
      it->milli = std::max(it->milli, e.milli);
    } else {
      entries_.insert(it, e);
    }
  }
}

bool is_hugepages_resource(std::string_view name) { return starts_with(name, "hugepages-"); }

bool is_native_resource(std::string_view name) {
  return name.find('/') == std::string_view::npos ||
         name.find("kubernetes.io/") != std::string_view::npos;
}

bool is_extended_resource(std::string_view name) {
  if (is_native_resource(name) || starts_with(name, "requests.")) {
    return false;
  }
  std::string quota_name = "requests.";
  quota_name += name;
  return is_qualified_name(quota_name);
}

bool is_scalar_resource(std::string_view name) {
  return is_extended_resource(name) || is_hugepages_resource(name) ||
         name.find("kubernetes.io/") != std::string_view::npos ||
         starts_with(name, "attachable-volumes-");
}

bool is_supported_pod_level_resource(std::string_view name) {
  return name == "cpu" || name == "memory" || is_hugepages_resource(name);
}

bool is_overcommit_allowed(std::string_view name) {
  return is_native_resource(name) && !is_hugepages_resource(name);
}

int64_t milli_to_units(int128_t milli) {
  int128_t units = milli < 0 ? -((-milli + 999) / 1000) : (milli + 999) / 1000;
  return saturate_int64(units);
}

ResourceValues to_resource_values(const ResourceList& list, bool with_pods) {
  ResourceValues out;
  for (const auto& e : list) {
    switch (e.name) {
      case SH_ID_CPU:
        out.milli_cpu = saturate_int64(e.milli);
        break;
      case SH_ID_MEMORY:
        out.memory = milli_to_units(e.milli);
        break;
      case SH_ID_EPHEMERAL_STORAGE:
        out.ephemeral_storage = milli_to_units(e.milli);
        break;
      case SH_ID_PODS:
        if (with_pods) {
          out.allowed_pod_number = milli_to_units(e.milli);
        }
        break;
      default:
        if (is_scalar_resource(interner().view(e.name))) {
          out.scalars.push_back(sh_quantity{e.name, milli_to_units(e.milli)});
        }
        break;
    }
  }
  return out;
}

}  // namespace sh::model
