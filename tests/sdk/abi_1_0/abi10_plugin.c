/*
 * Abi10Filter: a plugin built against the frozen ABI 1.0 header (include/schedhost/plugin.h
 * in this directory), never the current one. Its Filter rejects nodes labelled
 * abi-1-0/reject=true with "node(s) were rejected by a 1.0 plugin".
 */
#include <schedhost/plugin.h>

#include <stdlib.h>
#include <string.h>

#if SH_ABI_MAJOR != 1 || SH_ABI_MINOR != 0
#error "abi10_plugin.c must be built against the frozen ABI 1.0 header"
#endif

#define ABI10_NAME "Abi10Filter"
#define ABI10_VERSION "1.0.0"

static const char kRejected[] = "node(s) were rejected by a 1.0 plugin";

typedef struct abi10 {
  const sh_host_api* api;
  sh_host* host;
  sh_id reject_key;
  sh_id true_value;
} abi10;

static void* abi10_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  abi10* p = (abi10*)calloc(1, sizeof(abi10));
  (void)args;
  if (p == NULL) {
    return NULL;
  }
  p->api = api;
  p->host = host;
  p->reject_key = api->intern(host, "abi-1-0/reject", strlen("abi-1-0/reject"));
  p->true_value = api->intern(host, "true", strlen("true"));
  return p;
}

static void abi10_destroy(void* self) { free(self); }

static sh_code abi10_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                            const sh_node_info* node_info, sh_status* status) {
  const abi10* p = (const abi10*)self;
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
    NULL,         /* pre_enqueue */
    NULL,         /* queue_sort_less */
    NULL,         /* pre_filter */
    NULL,         /* pre_filter_add_pod */
    NULL,         /* pre_filter_remove_pod */
    abi10_filter, /* filter */
    NULL,         /* post_filter */
    NULL,         /* pre_score */
    NULL,         /* score */
    NULL,         /* normalize_score */
    NULL,         /* reserve */
    NULL,         /* unreserve */
    NULL,         /* permit */
    NULL,         /* pre_bind */
    NULL,         /* bind */
    NULL,         /* post_bind */
    NULL,         /* events_to_register */
    NULL          /* queueing_hint */
};

static const sh_plugin_descriptor kDescriptor = {
    sizeof(sh_plugin_descriptor), SH_ABI_MAJOR, SH_ABI_MINOR, ABI10_NAME, ABI10_VERSION, "{}", 0u,
    0u, abi10_create, abi10_destroy, &kVtable};

SH_PLUGIN_METADATA(abi10_metadata, ABI10_NAME, ABI10_VERSION, SH_POINT_FILTER, 0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
