// JSON patches as the API server applies them to an object: the embedded cluster's PATCH writes
// (sh_patch_type). Each function works on a parsed object; none reads or writes text.
//
// Hostile input: every function bounds how deep it descends at kMaxPatchDepth levels and never
// recurses past it, so a patch nested 100,000 levels cannot overflow the stack. Beyond the bound,
// applyJsonPatch and applyStrategicMergePatch refuse the patch; applyMergePatch, which cannot
// fail, stops merging there and puts the patch's sub-tree in place of the target's whole (copied
// without recursion), so nulls below that level are kept rather than deleting members.
#pragma once

#include <cstddef>
#include <string>

#include <boost/json/value.hpp>

namespace sh::connectors {

// How many levels of objects and arrays a patch may nest: twice the host's JSON depth limit
// (limits::kMaxJsonDepth), so that no patch an object could need comes near it.
inline constexpr std::size_t kMaxPatchDepth = 512;

// RFC 7386 JSON merge patch (application/merge-patch+json): `patch` applied to `target` in
// place. A null member deletes the member; a non-object patch replaces the target; an object
// patch turns a non-object target into an object first.
void applyMergePatch(boost::json::value& target, const boost::json::value& patch);

// RFC 6902 JSON patch (application/json-patch+json): the operations add, remove, replace,
// move, copy and test, in order, with RFC 6901 pointers ("~1" for '/', "~0" for '~', "-" for
// the end of an array in add). False with `error` naming the operation and its cause
// ("operation 2 (remove /spec/x): path not found"); `target` is then left unchanged, since the
// operations are applied to a copy that replaces it only when all of them succeed. An operation
// whose value, where it is put, would nest past kMaxPatchDepth is refused.
bool applyJsonPatch(boost::json::value& target, const boost::json::value& patch,
                    std::string& error);

// Strategic merge patch (application/strategic-merge-patch+json) for the built-in kinds, in
// the subset an embedded cluster needs. It is a merge patch, except that:
//   - the lists upstream marks patchStrategy=merge are merged (json_patch.cc, kMergeLists):
//     lists of objects by their patchMergeKey (status.conditions by "type", spec.containers
//     by "name", a container's ports by "containerPort", ...), lists of strings as a set
//     (metadata.finalizers); every other list is replaced whole (spec.tolerations,
//     spec.taints), as upstream does for atomic lists. A field is found by its name and the
//     name of the field that holds it, not by the object's kind;
//   - a map with "$patch": "replace" replaces the target map, "$patch": "delete" empties it;
//     a list element {"<key>": ..., "$patch": "delete"} deletes the elements with that key and
//     one with "$patch": "replace" replaces the whole list with the patch's other elements;
//   - "$deleteFromPrimitiveList/<field>" removes values from a merged list of scalars and
//     "$setElementOrder/<field>" orders a merged list as upstream's normalizeElementOrder does;
//   - "$retainKeys" is accepted and ignored: members it would clear are kept.
// Merged lists come out in upstream's order: patch items in the patch's order, interleaved
// with the target's other items where the target's order places them. False with `error` on a
// malformed patch (not an object, an unknown "$patch", a list element without its merge key,
// mixed element types, nesting past kMaxPatchDepth); `target` is then left unchanged.
bool applyStrategicMergePatch(boost::json::value& target, const boost::json::value& patch,
                              std::string& error);

}  // namespace sh::connectors
