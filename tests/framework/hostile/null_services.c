/* Calls host services with NULL pointers and absurd lengths from PreFilter and Filter. Each
 * call must be refused and counted, never crash; the plugin then answers Success. */
#include <stdint.h>

#include "hostile.h"

static sh_code null_pre_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                               sh_prefilter_result* result, sh_status* status) {
  (void)self;
  (void)cycle;
  (void)pod;
  (void)status;
  hostile_api->prefilter_result_add_node(result, NULL, 5); /* 1 refusal */
  return SH_SUCCESS;
}

/* 9 refusals per node. */
static sh_code null_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                           const sh_node_info* node_info, sh_status* status) {
  (void)self;
  (void)pod;
  (void)node_info;
  const sh_host_api* api = hostile_api;
  api->status_add_reason(status, NULL, 7);
  api->status_add_reason(status, "x", SIZE_MAX);
  api->status_add_reason(NULL, "x", 1);
  if (api->intern(hostile_host, NULL, 3) != SH_ID_NONE) {
    return SH_ERROR;
  }
  api->log(hostile_host, SH_LOG_WARN, NULL, 9);
  const sh_snapshot* snap = api->cycle_snapshot(cycle);
  api->snapshot_nodes_with_affinity_pods(snap, NULL);
  if (api->namespace_labels(cycle, NULL, 4, NULL) != 0) {
    return SH_ERROR;
  }
  api->node_filter_code(cycle, NULL, 3);
  if (api->snapshot_node_by_name(snap, NULL, 2) != NULL) {
    return SH_ERROR;
  }
  return SH_SUCCESS;
}

static const sh_plugin_vtable null_vtable = {
    .struct_size = sizeof(sh_plugin_vtable),
    .pre_filter = null_pre_filter,
    .filter = null_filter,
};

HOSTILE_PLUGIN("NullServices", SH_POINT_PRE_FILTER | SH_POINT_FILTER, &null_vtable,
               hostile_create)
