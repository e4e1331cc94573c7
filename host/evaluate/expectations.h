// Expectations in scenario files: a partial copy of `schedhost evaluate`'s output that the
// real output must agree with (docs/scenario-format.md, "Expectations"). `schedhost test`
// runs a scenario and reports each disagreement with its path, expected and actual value.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

namespace sh::evaluate {

// One disagreement between the expectation and the output.
struct Mismatch {
  std::string path;                          // "nodes.n1.filter.NodeResourcesFit.code"
  boost::json::value expected;               // as the scenario wrote it
  std::optional<boost::json::value> actual;  // nullopt: the output has no such entry
  std::string note;                          // extra words for a reader, "" when none
};

struct ExpectationCheck {
  // Problems of the expectation itself (an unknown key, a wrong type), each naming its path
  // from the top of the scenario: "expect.nodes.n1.fesible: unknown key (...)". A check with
  // errors has not compared everything and must not count as passed.
  std::vector<std::string> errors;
  std::vector<Mismatch> mismatches;

  bool passed() const { return errors.empty() && mismatches.empty(); }
};

// Compares `expect` (the scenario's "expect" object) with `output` (evaluate's output, as
// toJson prints it). What `expect` names must match; what it leaves out is not checked;
// arrays match exactly; a filter expectation {"code": "Success"} also matches an omitted
// entry (evaluate may leave out a plugin that passed).
ExpectationCheck checkExpectations(const boost::json::value& expect,
                                   const boost::json::value& output);

// "nodes.n1.total: expected 74, got 73" (values as JSON; "got nothing" when absent).
std::string describe(const Mismatch& mismatch);

}  // namespace sh::evaluate
