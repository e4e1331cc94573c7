#include "host/cli/secure_serving.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <utility>

#include <spdlog/spdlog.h>

namespace sh::cli {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kAnonymous = "system:anonymous";
constexpr std::string_view kUnauthenticated = "system:unauthenticated";
constexpr std::string_view kAuthenticated = "system:authenticated";
constexpr std::size_t kCacheLimit = 4096;  // entries per cache; the oldest half goes beyond

std::string status(int code, std::string_view reason, const std::string& message) {
  json::object o;
  o["kind"] = "Status";
  o["apiVersion"] = "v1";
  o["metadata"] = json::object();
  o["status"] = "Failure";
  o["message"] = message;
  o["reason"] = reason;
  if (code == 403) o["details"] = json::object();
  o["code"] = code;
  return json::serialize(o) + "\n";
}

bool allowedPath(const std::vector<std::string>& paths, std::string_view path) {
  for (const std::string& p : paths) {
    if (!p.empty() && p.back() == '*') {
      if (path.substr(0, p.size() - 1) == std::string_view(p).substr(0, p.size() - 1)) {
        return true;
      }
    } else if (p == path) {
      return true;
    }
  }
  return false;
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && lowercase(a) == lowercase(b);
}

// url.PathUnescape: %XX decoded; a malformed escape leaves the whole text as it was
// (unescapeExtraKey records it all the same).
std::string pathUnescape(const std::string& text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return text;
    const int hi = hex(text[i + 1]);
    const int lo = hex(text[i + 2]);
    if (hi < 0 || lo < 0) return text;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::vector<std::string> strings(const json::value* v) {
  std::vector<std::string> out;
  if (v != nullptr && v->is_array()) {
    for (const json::value& item : v->get_array()) {
      if (item.is_string()) out.emplace_back(item.get_string());
    }
  }
  return out;
}

// POST of a review (`kind` of `group`/v1, `resource`) with `spec`, under upstream's client
// timeout of 10 s; one per cache miss.
kube::Response sendReview(kube::Transport& transport, std::string_view group, std::string_view kind,
                          std::string_view resource, json::object spec, std::stop_token stop) {
  json::object body;
  body["apiVersion"] = std::string(group) + "/v1";
  body["kind"] = kind;
  body["spec"] = std::move(spec);
  kube::Request request;
  request.method = kube::Method::kPost;
  request.path = "/apis/" + std::string(group) + "/v1/" + std::string(resource);
  request.body = json::serialize(body);
  request.timeout = std::chrono::seconds(10);
  request.stop = std::move(stop);
  return transport.send(request);
}

template <typename Map>
void trim(Map& cache) {
  if (cache.size() < kCacheLimit) return;
  const auto now = Clock::now();
  std::erase_if(cache, [&](const auto& entry) { return entry.second.expires <= now; });
  if (cache.size() >= kCacheLimit) cache.clear();
}

}  // namespace

std::string unauthorizedStatus() { return status(401, "Unauthorized", "Unauthorized"); }

std::string forbiddenStatus(const std::string& user, std::string_view verb, std::string_view path,
                            const std::string& reason) {
  // responsewriters.Forbidden: forbiddenMessage, then ": reason" when there is one, in
  // NewForbidden's "forbidden: %v".
  std::string message = "forbidden: User \"" + user + "\" cannot " + std::string(verb) +
                        " path \"" + std::string(path) + "\"";
  if (!reason.empty()) message += ": " + reason;
  return status(403, "Forbidden", message);
}

DelegatedAuth::DelegatedAuth(kube::Transport* authentication, kube::Transport* authorization,
                             Options options)
    : authentication_(authentication),
      authorization_(authorization),
      options_(std::move(options)) {}

std::uint64_t DelegatedAuth::tokenReviews() const {
  std::lock_guard lock(mu_);
  return tokenReviews_;
}
std::uint64_t DelegatedAuth::accessReviews() const {
  std::lock_guard lock(mu_);
  return accessReviews_;
}

DelegatedAuth::Result DelegatedAuth::requestHeaderUser(const admin::Caller& caller,
                                                       User& user) const {
  const Options::RequestHeader& proxy = options_.requestHeader;
  if (proxy.ca == nullptr || caller.certificates.empty()) return Result::kNone;
  std::string error;
  const std::optional<admin::CertificateSubject> subject =
      proxy.ca->verify(caller.certificates, error);
  if (!subject) {
    spdlog::debug("secure serving: front-proxy certificate: {}", error);
    return Result::kError;
  }
  if (!proxy.allowedNames.empty() && std::find(proxy.allowedNames.begin(), proxy.allowedNames.end(),
                                               subject->commonName) == proxy.allowedNames.end()) {
    spdlog::debug("secure serving: x509: subject with cn={} is not in the allowed list",
                  subject->commonName);
    return Result::kError;
  }
  // headerValue: the first header of the list whose (first) value is not empty.
  std::string name;
  for (const std::string& header : proxy.usernameHeaders) {
    if (std::optional<std::string_view> value = caller.header(header); value && !value->empty()) {
      name = std::string(*value);
      break;
    }
  }
  if (name.empty()) return Result::kNone;  // vouches for nobody: the next authenticator asks
  user.name = std::move(name);
  // allHeaderValues: every non-empty value of each group header, header by header.
  for (const std::string& header : proxy.groupHeaders) {
    for (const auto& [field, value] : caller.headers) {
      if (!value.empty() && iequals(field, header)) user.groups.push_back(value);
    }
  }
  // newExtra: prefix by prefix, every header under it; the rest of its name, lowercased and
  // %-unescaped, is the key.
  for (const std::string& prefix : proxy.extraHeaderPrefixes) {
    for (const auto& [field, value] : caller.headers) {
      if (field.size() < prefix.size() || !iequals(field.substr(0, prefix.size()), prefix)) {
        continue;
      }
      user.extra[pathUnescape(lowercase(field.substr(prefix.size())))].push_back(value);
    }
  }
  return Result::kUser;
}

DelegatedAuth::Result DelegatedAuth::certificateUser(const admin::Caller& caller,
                                                     User& user) const {
  if (options_.clientCa == nullptr || caller.certificates.empty()) return Result::kNone;
  std::string error;
  std::optional<admin::CertificateSubject> subject =
      options_.clientCa->verify(caller.certificates, error);
  if (!subject) {
    spdlog::debug("secure serving: client certificate: {}", error);
    return Result::kError;
  }
  if (subject->commonName.empty()) return Result::kNone;  // CommonNameUserConversion
  user.name = std::move(subject->commonName);
  user.groups = std::move(subject->organizations);
  return Result::kUser;
}

DelegatedAuth::Result DelegatedAuth::tokenUser(const admin::Caller& caller, User& user,
                                               std::stop_token stop) {
  const std::string_view header = caller.header("Authorization").value_or(std::string_view());
  if (header.empty()) return Result::kNone;
  // bearertoken: "Bearer <token>", the scheme in any case; anything else is no token.
  const std::size_t space = header.find(' ');
  if (space == std::string_view::npos || lowercase(header.substr(0, space)) != "bearer") {
    return Result::kNone;
  }
  std::string token(header.substr(space + 1));
  while (!token.empty() && token.front() == ' ') token.erase(token.begin());
  if (token.empty()) return Result::kNone;
  {
    std::lock_guard lock(mu_);
    if (auto it = tokens_.find(token); it != tokens_.end() && it->second.expires > Clock::now()) {
      if (!it->second.authenticated) return Result::kError;
      user = it->second.user;
      return Result::kUser;
    }
  }
  if (authentication_ == nullptr) return Result::kError;
  json::object spec;
  spec["token"] = token;
  {
    std::lock_guard lock(mu_);
    ++tokenReviews_;
  }
  const kube::Response response = sendReview(*authentication_, "authentication.k8s.io",
                                             "TokenReview", "tokenreviews", std::move(spec), stop);
  json::value answer;
  std::string error;
  if (!response.ok() || !kube::parseBody(response, answer, error) || !answer.is_object()) {
    return Result::kError;  // a failed review is an authentication error
  }
  const json::value* st = answer.get_object().if_contains("status");
  TokenEntry entry;
  entry.expires = Clock::now() + options_.tokenCacheTtl;
  if (st != nullptr && st->is_object()) {
    const json::object& s = st->get_object();
    const json::value* authenticated = s.if_contains("authenticated");
    entry.authenticated =
        authenticated != nullptr && authenticated->is_bool() && authenticated->get_bool();
    if (const json::value* u = s.if_contains("user"); u != nullptr && u->is_object()) {
      const json::object& uo = u->get_object();
      if (const json::value* n = uo.if_contains("username"); n != nullptr && n->is_string()) {
        entry.user.name = std::string(n->get_string());
      }
      if (const json::value* id = uo.if_contains("uid"); id != nullptr && id->is_string()) {
        entry.user.uid = std::string(id->get_string());
      }
      entry.user.groups = strings(uo.if_contains("groups"));
      if (const json::value* x = uo.if_contains("extra"); x != nullptr && x->is_object()) {
        for (const auto& [k, v] : x->get_object()) entry.user.extra[k] = strings(&v);
      }
    }
  }
  {
    std::lock_guard lock(mu_);
    trim(tokens_);
    tokens_[token] = entry;
  }
  if (!entry.authenticated) return Result::kError;
  user = entry.user;
  return Result::kUser;
}

DelegatedAuth::Outcome DelegatedAuth::authenticate(const admin::Caller& caller, User& user,
                                                   std::stop_token stop) {
  // unionAuthRequestHandler: front proxy first, then client certificates, then tokens.
  bool failed = false;
  for (int step = 0; step < 3; ++step) {
    User who;
    const Result result = step == 0   ? requestHeaderUser(caller, who)
                          : step == 1 ? certificateUser(caller, who)
                                      : tokenUser(caller, who, stop);
    if (result == Result::kUser) {
      user = std::move(who);
      return Outcome::kAuthenticated;
    }
    failed = failed || result == Result::kError;
  }
  return failed ? Outcome::kUnauthorized : Outcome::kAnonymous;
}

std::optional<bool> DelegatedAuth::review(const User& user, std::string_view verb,
                                          std::string_view path, std::string& reason,
                                          std::string& error, std::stop_token stop) {
  std::string key =
      user.name + '\n' + user.uid + '\n' + std::string(verb) + '\n' + std::string(path);
  for (const std::string& g : user.groups) key += '\n' + g;
  {
    std::lock_guard lock(mu_);
    if (auto it = access_.find(key); it != access_.end() && it->second.expires > Clock::now()) {
      reason = it->second.reason;
      return it->second.allowed;
    }
  }
  json::object attributes;
  attributes["path"] = path;
  attributes["verb"] = verb;
  json::object spec;
  spec["nonResourceAttributes"] = std::move(attributes);
  spec["user"] = user.name;
  if (!user.uid.empty()) spec["uid"] = user.uid;
  json::array groups;
  for (const std::string& g : user.groups) groups.emplace_back(g);
  spec["groups"] = std::move(groups);
  if (!user.extra.empty()) {
    json::object extra;
    for (const auto& [k, values] : user.extra) {
      json::array a;
      for (const std::string& v : values) a.emplace_back(v);
      extra[k] = std::move(a);
    }
    spec["extra"] = std::move(extra);
  }
  {
    std::lock_guard lock(mu_);
    ++accessReviews_;
  }
  const kube::Response response =
      sendReview(*authorization_, "authorization.k8s.io", "SubjectAccessReview",
                 "subjectaccessreviews", std::move(spec), stop);
  json::value answer;
  if (!response.ok()) {
    error = kube::describeFailure(response);
    return std::nullopt;
  }
  if (!kube::parseBody(response, answer, error) || !answer.is_object()) {
    if (error.empty()) error = "the SubjectAccessReview answer is not an object";
    return std::nullopt;
  }
  bool allowed = false;
  if (const json::value* st = answer.get_object().if_contains("status");
      st != nullptr && st->is_object()) {
    const json::object& s = st->get_object();
    const json::value* a = s.if_contains("allowed");
    const json::value* denied = s.if_contains("denied");
    allowed = a != nullptr && a->is_bool() && a->get_bool() &&
              !(denied != nullptr && denied->is_bool() && denied->get_bool());
    if (const json::value* r = s.if_contains("reason"); r != nullptr && r->is_string()) {
      reason = std::string(r->get_string());
    }
    if (const json::value* e = s.if_contains("evaluationError");
        !allowed && e != nullptr && e->is_string() && !e->get_string().empty()) {
      error = std::string(e->get_string());
      return std::nullopt;
    }
  }
  std::lock_guard lock(mu_);
  trim(access_);
  access_[key] = {Clock::now() + (allowed ? options_.authorizedTtl : options_.unauthorizedTtl),
                  allowed, reason};
  return allowed;
}

admin::Admission DelegatedAuth::admit(std::string_view verb, std::string_view path,
                                      const admin::Caller& caller, std::stop_token stop) {
  admin::Admission out;
  User user;
  switch (authenticate(caller, user, stop)) {
    case Outcome::kUnauthorized:
      out.status = 401;
      out.body = unauthorizedStatus();
      return out;
    case Outcome::kAnonymous:
      user.name = std::string(kAnonymous);
      user.groups = {std::string(kUnauthenticated)};
      break;
    case Outcome::kAuthenticated:
      // AuthenticatedGroupAdder.
      if (user.name != kAnonymous &&
          std::find(user.groups.begin(), user.groups.end(), kAuthenticated) == user.groups.end() &&
          std::find(user.groups.begin(), user.groups.end(), kUnauthenticated) ==
              user.groups.end()) {
        user.groups.emplace_back(kAuthenticated);
      }
      break;
  }
  // authorizerfactory: the always-allowed paths and groups first, then the review.
  if (allowedPath(options_.alwaysAllowPaths, path)) {
    out.allowed = true;
    return out;
  }
  for (const std::string& group : user.groups) {
    if (std::find(options_.alwaysAllowGroups.begin(), options_.alwaysAllowGroups.end(), group) !=
        options_.alwaysAllowGroups.end()) {
      out.allowed = true;
      return out;
    }
  }
  std::string reason;
  if (authorization_ != nullptr) {
    std::string error;
    const std::optional<bool> allowed = review(user, verb, path, reason, error, stop);
    if (!allowed) {
      out.status = 500;
      out.contentType = "text/plain; charset=utf-8";
      out.body = "Internal Server Error: \"" + std::string(path) + "\": " + error + "\n";
      return out;
    }
    if (*allowed) {
      out.allowed = true;
      return out;
    }
  }
  out.status = 403;
  out.body = forbiddenStatus(user.name, verb, path, reason);
  return out;
}

}  // namespace sh::cli
