// Readers for selectors and affinity: metav1.LabelSelector, v1.NodeSelectorTerm,
// v1.NodeAffinity and v1.PodAffinity / PodAntiAffinity, into arena-backed view structs.
#ifndef SCHEDHOST_HOST_MODEL_SELECTOR_PARSER_H
#define SCHEDHOST_HOST_MODEL_SELECTOR_PARSER_H

#include <schedhost/plugin.h>

#include "host/model/arena.h"
#include "host/model/json_cursor.h"

namespace sh::model {

// A LabelSelector; nullptr when absent. Operators: In, NotIn, Exists, DoesNotExist.
const sh_label_selector* parseLabelSelector(const Cursor& c, Arena& arena);

// A NodeSelectorTerm. Operators: In, NotIn, Exists, DoesNotExist, Gt, Lt; for Gt and Lt a
// single integer value is also kept in `number` (number_ok = 1), as the matcher parses it.
sh_node_selector_term parseNodeSelectorTerm(const Cursor& c, Arena& arena);

// A NodeAffinity; nullptr when absent.
const sh_node_affinity* parseNodeAffinity(const Cursor& c, Arena& arena);

// A PodAffinity or PodAntiAffinity (same shape); nullptr when absent.
const sh_pod_affinity* parsePodAffinity(const Cursor& c, Arena& arena);

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_SELECTOR_PARSER_H
