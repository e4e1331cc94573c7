/*
 * Abi12Gate: a plugin built against the frozen ABI 1.2 header (include/schedhost/plugin.h in
 * this directory), never the current one. Its pod, node and host-table structs are the 1.2
 * sizes; the host's are larger since 1.3, and the plugin must keep working on them reading only
 * the prefix it knows.
 *
 *   kind 0     example.com/v1 widgets (Widget), namespaced, read only.
 *   PreFilter  checks that the host's table has the 1.2 slots (object_restore is the last) and
 *              that the pod's view is at least as large as the 1.2 sh_pod, as a 1.2 plugin
 *              must before reading them; Error "host table lacks the object services" or "pod
 *              view smaller than 1.2's" otherwise. Then reads the Widget "gate" of the pod's
 *              namespace through the cycle: Success when its spec.open is true, Unschedulable
 *              "widget <ns>/gate is closed" otherwise, "widget <ns>/gate not found" when there
 *              is none.
 *   Filter     rejects nodes labelled abi-1-2/reject=true with "node(s) were rejected by a 1.2
 *              plugin"; the node's view must be at least the 1.2 sh_node (Error otherwise).
 */
#include <schedhost/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if SH_ABI_MAJOR != 1 || SH_ABI_MINOR != 2
#error "abi12_plugin.c must be built against the frozen ABI 1.2 header"
#endif

#define ABI12_NAME "Abi12Gate"
#define ABI12_VERSION "1.2.0"

static const char kRejected[] = "node(s) were rejected by a 1.2 plugin";
static const char kNoSlots[] = "host table lacks the object services";
static const char kSmallPod[] = "pod view smaller than 1.2's";
static const char kSmallNode[] = "node view smaller than 1.2's";

typedef struct abi12 {
  const sh_host_api* api;
  sh_host* host;
  sh_id reject_key;
  sh_id true_value;
} abi12;

static void* abi12_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  abi12* p = (abi12*)calloc(1, sizeof(abi12));
  (void)args;
  if (p == NULL) {
    return NULL;
  }
  p->api = api;
  p->host = host;
  p->reject_key = api->intern(host, "abi-1-2/reject", strlen("abi-1-2/reject"));
  p->true_value = api->intern(host, "true", strlen("true"));
  return p;
}

static void abi12_destroy(void* self) { free(self); }

static sh_code abi12_refuse(const abi12* p, sh_status* status, const char* why, size_t len) {
  p->api->status_add_reason(status, why, len);
  return SH_ERROR;
}

static sh_code abi12_pre_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                                sh_prefilter_result* result, sh_status* status) {
  const abi12* p = (const abi12*)self;
  const sh_host_api* api = p->api;
  const size_t slots_end = offsetof(sh_host_api, object_restore) + sizeof(api->object_restore);
  const sh_object* gate;
  char why[300];
  int n;
  (void)result;
  if (api->abi_minor < 2 || api->struct_size < slots_end) {
    return abi12_refuse(p, status, kNoSlots, sizeof(kNoSlots) - 1);
  }
  if (pod->struct_size < sizeof(sh_pod)) {
    return abi12_refuse(p, status, kSmallPod, sizeof(kSmallPod) - 1);
  }
  gate = api->object_get(p->host, cycle, 0u, pod->namespace_.ptr, pod->namespace_.len, "gate", 4);
  if (gate != NULL && api->json_bool(api->json_path(gate->root, "spec.open", 9))) {
    return SH_SUCCESS;
  }
  n = snprintf(why, sizeof why, "widget %.*s/gate %s", (int)pod->namespace_.len,
               pod->namespace_.ptr, gate == NULL ? "not found" : "is closed");
  api->status_add_reason(status, why, n > 0 ? (size_t)n : 0);
  return SH_UNSCHEDULABLE;
}

static sh_code abi12_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                            const sh_node_info* node_info, sh_status* status) {
  const abi12* p = (const abi12*)self;
  const sh_node* node = node_info->node;
  uint32_t i;
  (void)cycle;
  (void)pod;
  if (node->struct_size < sizeof(sh_node)) {
    return abi12_refuse(p, status, kSmallNode, sizeof(kSmallNode) - 1);
  }
  for (i = 0; i < node->label_count; ++i) {
    if (node->labels[i].key == p->reject_key && node->labels[i].value == p->true_value) {
      p->api->status_add_reason(status, kRejected, sizeof(kRejected) - 1);
      return SH_UNSCHEDULABLE;
    }
  }
  return SH_SUCCESS;
}

static const sh_plugin_vtable kVtable = {
    sizeof(sh_plugin_vtable), 0,
    NULL,             /* pre_enqueue */
    NULL,             /* queue_sort_less */
    abi12_pre_filter, /* pre_filter */
    NULL,             /* pre_filter_add_pod */
    NULL,             /* pre_filter_remove_pod */
    abi12_filter,     /* filter */
    NULL,             /* post_filter */
    NULL,             /* pre_score */
    NULL,             /* score */
    NULL,             /* normalize_score */
    NULL,             /* reserve */
    NULL,             /* unreserve */
    NULL,             /* permit */
    NULL,             /* pre_bind */
    NULL,             /* bind */
    NULL,             /* post_bind */
    NULL,             /* events_to_register */
    NULL              /* queueing_hint */
};

static const sh_object_kind kKinds[] = {
    {sizeof(sh_object_kind), 0u, "example.com", "v1", "widgets", "Widget", 1, 0, NULL, NULL},
};

/* The 1.2 descriptor, with its kinds. */
static const sh_plugin_descriptor kDescriptor = {
    sizeof(sh_plugin_descriptor), SH_ABI_MAJOR, SH_ABI_MINOR, ABI12_NAME, ABI12_VERSION, "{}", 0u,
    0u, abi12_create, abi12_destroy, &kVtable, kKinds, 1u, 0u};

SH_PLUGIN_METADATA(abi12_metadata, ABI12_NAME, ABI12_VERSION, SH_POINT_PRE_FILTER | SH_POINT_FILTER,
                   0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
