#include "host/connectors/pod_patch.h"

#include <chrono>
#include <ctime>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

namespace sh::connectors {

namespace {

// o[key] as an object, replacing whatever else was there.
boost::json::object& objectMember(boost::json::object& o, std::string_view key) {
  boost::json::value* v = o.if_contains(key);
  if (v == nullptr) {
    v = &o.emplace(key, boost::json::object()).first->value();
  } else if (!v->is_object()) {
    *v = boost::json::object();
  }
  return v->as_object();
}

// Sets the condition of `type`, merged by type as a strategic merge patch merges
// `conditions`: other conditions stay, lastTransitionTime changes only when the status does.
void setCondition(boost::json::object& pod, std::string_view type, std::string_view status,
                  std::string_view reason, std::string_view message, std::string_view now) {
  boost::json::object& st = objectMember(pod, "status");
  boost::json::value* conditions = st.if_contains("conditions");
  if (conditions == nullptr) {
    conditions = &st.emplace("conditions", boost::json::array()).first->value();
  } else if (!conditions->is_array()) {
    *conditions = boost::json::array();
  }
  boost::json::array& list = conditions->as_array();
  boost::json::object* cond = nullptr;
  for (boost::json::value& c : list) {
    const boost::json::value* t = c.is_object() ? c.as_object().if_contains("type") : nullptr;
    if (t != nullptr && t->is_string() && t->as_string() == type) {
      cond = &c.as_object();
      break;
    }
  }
  if (cond == nullptr) {
    list.emplace_back(boost::json::object{{"type", type}});
    cond = &list.back().as_object();
  }
  const boost::json::value* old = cond->if_contains("status");
  bool transition = old == nullptr || !old->is_string() || old->as_string() != status;
  (*cond)["status"] = status;
  (*cond)["lastProbeTime"] = nullptr;
  if (transition || !cond->contains("lastTransitionTime")) {
    (*cond)["lastTransitionTime"] = now;
  }
  if (reason.empty()) {
    cond->erase("reason");
  } else {
    (*cond)["reason"] = reason;
  }
  if (message.empty()) {
    cond->erase("message");
  } else {
    (*cond)["message"] = message;
  }
}

void setPodScheduled(boost::json::object& pod, std::string_view status, std::string_view reason,
                     std::string_view message, std::string_view now) {
  setCondition(pod, "PodScheduled", status, reason, message, now);
}

}  // namespace

std::string truncateNote(std::string note) {
  if (note.size() <= kNoteLengthLimit) {
    return note;
  }
  static constexpr std::string_view kSuffix = " ...";
  std::size_t cut = kNoteLengthLimit - kSuffix.size();
  // Back off over UTF-8 continuation bytes (10xxxxxx) so no character is split.
  while (cut > 0 && (static_cast<unsigned char>(note[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  note.resize(cut);
  note += kSuffix;
  return note;
}

std::string rfc3339Now() {
  // Whole seconds: each thread formats a second once (every bind and status patch asks).
  thread_local std::time_t cachedSecond = -1;
  thread_local std::string cachedText;
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  if (t != cachedSecond) {
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cachedText = buf;
    cachedSecond = t;
  }
  return cachedText;
}

void applyBinding(boost::json::object& pod, std::string_view nodeName, std::string_view now) {
  objectMember(pod, "spec")["nodeName"] = nodeName;
  setPodScheduled(pod, "True", "", "", now);
}

void applySchedulingFailure(boost::json::object& pod, std::string_view reason,
                            std::string_view message, const std::optional<std::string>& nominated,
                            std::string_view now) {
  setPodScheduled(pod, "False", reason, truncateNote(std::string(message)), now);
  if (nominated.has_value()) {
    boost::json::object& st = objectMember(pod, "status");
    if (nominated->empty()) {
      st.erase("nominatedNodeName");
    } else {
      st["nominatedNodeName"] = *nominated;
    }
  }
}

void applyDisruptionTarget(boost::json::object& pod, std::string_view message,
                           std::string_view now) {
  setCondition(pod, "DisruptionTarget", "True", "PreemptionByScheduler",
               truncateNote(std::string(message)), now);
}

}  // namespace sh::connectors
