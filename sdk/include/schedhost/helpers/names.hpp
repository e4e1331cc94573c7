// Name syntax, as k8s.io/apimachinery/pkg/util/validation and core/v1/helper check it: the
// predicates plugins need on the hot path, and the messages args validation reports.
//
//   isQualifiedNamePart, isDns1123Subdomain    the two halves of a qualified name
//   qualifiedNameErrors                        validation.IsQualifiedName
//   labelValueErrors                           validation.IsValidLabelValue
//   isNativeResourceName                       v1helper.IsNativeResource
//   isExtendedResourceName                     v1helper.IsExtendedResourceName
//   isScalarResourceName                       schedutil.IsScalarResourceName
#ifndef SCHEDHOST_HELPERS_NAMES_HPP
#define SCHEDHOST_HELPERS_NAMES_HPP

#include <schedhost/detail/text.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost {

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], non-empty: the name part of a qualified name.
inline bool isQualifiedNamePart(std::string_view s) noexcept {
  if (s.empty() || !detail::isAlnum(s.front()) || !detail::isAlnum(s.back())) {
    return false;
  }
  for (char c : s) {
    if (!detail::isAlnum(c) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*: a lowercase RFC 1123
// subdomain (the length limit is the caller's).
inline bool isDns1123Subdomain(std::string_view s) noexcept {
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !detail::isLowerAlnum(label.front()) ||
        !detail::isLowerAlnum(label.back())) {
      return false;
    }
    for (char c : label) {
      if (!detail::isLowerAlnum(c) && c != '-') {
        return false;
      }
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    start = dot + 1;
  }
}

// validation.IsQualifiedName: the problems with `value` as a label key or resource name, in
// upstream's words; empty when it is valid.
inline std::vector<std::string> qualifiedNameErrors(std::string_view value) {
  static const char kNameMsg[] =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
      "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  static const char kSubdomainMsg[] =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
      "used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  std::vector<std::string> errs;
  std::string_view name = value;
  std::size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back(std::string("a qualified name ") + kNameMsg +
                     " with an optional DNS subdomain prefix and '/' (e.g. "
                     "'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > 253) {
        errs.emplace_back("prefix part must be no more than 253 characters");
      }
      if (!isDns1123Subdomain(prefix)) {
        errs.push_back(std::string("prefix part ") + kSubdomainMsg);
      }
    }
  }
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else {
    if (name.size() > 63) {
      errs.emplace_back("name part must be no more than 63 characters");
    }
    if (!isQualifiedNamePart(name)) {
      errs.push_back(std::string("name part ") + kNameMsg);
    }
  }
  return errs;
}

// validation.IsValidLabelValue: the problems with `value` as a label value, in upstream's
// words; empty when it is valid.
inline std::vector<std::string> labelValueErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) {
    errs.emplace_back("must be no more than 63 characters");
  }
  bool ok = value.empty() || (detail::isAlnum(value.front()) && detail::isAlnum(value.back()));
  for (char c : value) {
    ok = ok && (detail::isAlnum(c) || c == '-' || c == '_' || c == '.');
  }
  if (!ok) {
    errs.emplace_back(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
        "'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  }
  return errs;
}

// v1helper.IsNativeResource: no domain, or a domain within kubernetes.io.
inline bool isNativeResourceName(std::string_view name) noexcept {
  return name.find('/') == std::string_view::npos ||
         name.find("kubernetes.io/") != std::string_view::npos;
}

// v1helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io that is not a
// quota "requests." name and stays a qualified name as "requests.<name>".
inline bool isExtendedResourceName(std::string_view name) noexcept {
  if (isNativeResourceName(name) || detail::startsWith(name, "requests.")) {
    return false;
  }
  std::size_t slash = name.find('/');
  std::string_view domain = name.substr(0, slash);
  std::string_view local = name.substr(slash + 1);
  return local.find('/') == std::string_view::npos && domain.size() + 9 <= 253 &&
         isDns1123Subdomain(domain) && local.size() <= 63 && isQualifiedNamePart(local);
}

// schedutil.IsScalarResourceName: extended, hugepages-*, prefixed native, attachable-volume-*.
inline bool isScalarResourceName(std::string_view name) noexcept {
  return isExtendedResourceName(name) || detail::startsWith(name, "hugepages-") ||
         (name.find('/') != std::string_view::npos &&
          name.find("kubernetes.io/") != std::string_view::npos) ||
         detail::startsWith(name, "attachable-volumes-");
}

}  // namespace schedhost

#endif  // SCHEDHOST_HELPERS_NAMES_HPP
