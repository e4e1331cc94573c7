/*
 * Abi11Filter: a plugin built against the frozen ABI 1.1 header (include/schedhost/plugin.h
 * in this directory), never the current one. Its descriptor, host table and event structs are
 * the 1.1 sizes, so the current host must read none of what 1.2 appended to them.
 *
 *   PreFilter  checks that the host's table has the 1.1 slot cycle_activate_pod, as a 1.1
 *              plugin must before calling it, then asks the host to activate the pod's sibling
 *              "<name>-sibling"; Error "host table lacks cycle_activate_pod" otherwise.
 *   Filter     rejects nodes labelled abi-1-1/reject=true with "node(s) were rejected by a 1.1
 *              plugin".
 */
#include <schedhost/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if SH_ABI_MAJOR != 1 || SH_ABI_MINOR != 1
#error "abi11_plugin.c must be built against the frozen ABI 1.1 header"
#endif

#define ABI11_NAME "Abi11Filter"
#define ABI11_VERSION "1.1.0"

static const char kRejected[] = "node(s) were rejected by a 1.1 plugin";
static const char kNoSlot[] = "host table lacks cycle_activate_pod";

typedef struct abi11 {
  const sh_host_api* api;
  sh_host* host;
  sh_id reject_key;
  sh_id true_value;
} abi11;

static void* abi11_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  abi11* p = (abi11*)calloc(1, sizeof(abi11));
  (void)args;
  if (p == NULL) {
    return NULL;
  }
  p->api = api;
  p->host = host;
  p->reject_key = api->intern(host, "abi-1-1/reject", strlen("abi-1-1/reject"));
  p->true_value = api->intern(host, "true", strlen("true"));
  return p;
}

static void abi11_destroy(void* self) { free(self); }

static sh_code abi11_pre_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                                sh_prefilter_result* result, sh_status* status) {
  const abi11* p = (const abi11*)self;
  const size_t slot_end =
      offsetof(sh_host_api, cycle_activate_pod) + sizeof(p->api->cycle_activate_pod);
  char sibling[300];
  int n;
  (void)result;
  if (p->api->abi_minor < 1 || p->api->struct_size < slot_end ||
      p->api->cycle_activate_pod == NULL) {
    p->api->status_add_reason(status, kNoSlot, sizeof(kNoSlot) - 1);
    return SH_ERROR;
  }
  n = snprintf(sibling, sizeof sibling, "%.*s-sibling", (int)pod->name.len, pod->name.ptr);
  if (n > 0 && (size_t)n < sizeof sibling) {
    p->api->cycle_activate_pod(cycle, pod->namespace_.ptr, pod->namespace_.len, sibling,
                               (size_t)n);
  }
  return SH_SUCCESS;
}

static sh_code abi11_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                            const sh_node_info* node_info, sh_status* status) {
  const abi11* p = (const abi11*)self;
  const sh_node* node = node_info->node;
  uint32_t i;
  (void)cycle;
  (void)pod;
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
    abi11_pre_filter, /* pre_filter */
    NULL,             /* pre_filter_add_pod */
    NULL,             /* pre_filter_remove_pod */
    abi11_filter,     /* filter */
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

/* The 1.1 descriptor: it ends at vtable, before 1.2's kinds. */
static const sh_plugin_descriptor kDescriptor = {
    sizeof(sh_plugin_descriptor), SH_ABI_MAJOR, SH_ABI_MINOR, ABI11_NAME, ABI11_VERSION, "{}", 0u,
    0u, abi11_create, abi11_destroy, &kVtable};

SH_PLUGIN_METADATA(abi11_metadata, ABI11_NAME, ABI11_VERSION, SH_POINT_PRE_FILTER | SH_POINT_FILTER,
                   0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
