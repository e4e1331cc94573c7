// The edits of a pod manifest the embedded cluster makes where an API server would: the binding
// (spec.nodeName plus PodScheduled=True) and the scheduler's status patch on failure
// (PodScheduled=False, status.nominatedNodeName); docs/cluster-protocol.md lists them. A Pod
// itself is never changed: the caller parses the edited manifest into a new Pod, or, for the
// binding, makes the new Pod with model::bindToNode, which applies applyBinding to the manifest
// when it is first read.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

namespace sh::connectors {

// Upstream's NoteLengthLimit: event notes and condition messages are at most this many bytes.
inline constexpr std::size_t kNoteLengthLimit = 1024;

// `note` cut to kNoteLengthLimit bytes, ending in " ..." when it was cut (as the scheduler's
// truncateMessage does), never inside a UTF-8 sequence.
std::string truncateNote(std::string note);

// The current time as metav1.Time writes it: RFC 3339, UTC, whole seconds.
std::string rfc3339Now();

// Sets spec.nodeName and the PodScheduled=True condition (stamped `now` when it changes). The
// view model::bindToNode makes must stay what parsing the result gives.
void applyBinding(boost::json::object& pod, std::string_view nodeName, std::string_view now);

// Sets the PodScheduled=False condition with `reason` and `message`. `nominated`: nullopt
// leaves status.nominatedNodeName as it is, "" removes it, anything else sets it.
void applySchedulingFailure(boost::json::object& pod, std::string_view reason,
                            std::string_view message, const std::optional<std::string>& nominated,
                            std::string_view now);

// Sets the condition DisruptionTarget=True, reason PreemptionByScheduler, with `message`
// ("<schedulerName>: preempting to accommodate a higher priority pod"): what the scheduler
// writes on a victim before deleting it.
void applyDisruptionTarget(boost::json::object& pod, std::string_view message,
                           std::string_view now);

}  // namespace sh::connectors
