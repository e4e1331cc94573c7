/*
 * CPlugin: a complete schedhost plugin in plain C99, against plugin.h alone. It proves the
 * ABI header is C and that a plugin needs nothing but it.
 *
 *   Filter  rejects nodes labelled c-plugin/reject=true (Unschedulable,
 *           "node(s) were rejected by the C plugin")
 *   Score   100 for nodes labelled c-plugin/preferred=true, 0 otherwise
 *
 * Args: {"rejectValue": "<label value>"} (default "true"), to show the args tree from C.
 */
#include <schedhost/plugin.h>

#include <stdlib.h>
#include <string.h>

#define CPLUGIN_NAME "CPlugin"
#define CPLUGIN_VERSION "1.0.0"

static const char kRejected[] = "node(s) were rejected by the C plugin";

typedef struct cplugin {
  const sh_host_api* api;
  sh_host* host;
  sh_id reject_key;
  sh_id reject_value;
  sh_id preferred_key;
  sh_id true_value;
} cplugin;

static sh_id intern_cstr(const cplugin* p, const char* s) {
  return p->api->intern(p->host, s, strlen(s));
}

/* The value id of the label `key` on `node`, or SH_ID_NONE (labels are sorted by key id). */
static sh_id label_value(const sh_node* node, sh_id key) {
  uint32_t lo = 0;
  uint32_t hi = node->label_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (node->labels[mid].key < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo < node->label_count && node->labels[lo].key == key) {
    return node->labels[lo].value;
  }
  return SH_ID_NONE;
}

static void* cplugin_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  cplugin* p = (cplugin*)calloc(1, sizeof(cplugin));
  const sh_args* reject = args != NULL ? api->args_get(args, "rejectValue") : NULL;
  sh_str value;
  if (p == NULL) {
    return NULL;
  }
  p->api = api;
  p->host = host;
  p->reject_key = intern_cstr(p, "c-plugin/reject");
  p->preferred_key = intern_cstr(p, "c-plugin/preferred");
  p->true_value = intern_cstr(p, "true");
  p->reject_value = p->true_value;
  if (reject != NULL) {
    if (api->args_type(reject) != SH_ARGS_STRING) {
      static const char msg[] = "Invalid value: expected a string";
      api->args_error(host, reject, msg, sizeof(msg) - 1);
      free(p);
      return NULL;
    }
    value = api->args_string(reject);
    p->reject_value = api->intern(host, value.ptr, value.len);
  }
  return p;
}

static void cplugin_destroy(void* self) { free(self); }

static sh_code cplugin_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                              const sh_node_info* node_info, sh_status* status) {
  const cplugin* p = (const cplugin*)self;
  (void)cycle;
  (void)pod;
  if (label_value(node_info->node, p->reject_key) == p->reject_value) {
    p->api->status_add_reason(status, kRejected, sizeof(kRejected) - 1);
    return SH_UNSCHEDULABLE;
  }
  return SH_SUCCESS;
}

static sh_code cplugin_score(void* self, sh_cycle* cycle, const sh_pod* pod,
                             const sh_node_info* node_info, int64_t* score, sh_status* status) {
  const cplugin* p = (const cplugin*)self;
  (void)cycle;
  (void)pod;
  (void)status;
  *score = label_value(node_info->node, p->preferred_key) == p->true_value ? SH_MAX_NODE_SCORE
                                                                           : SH_MIN_NODE_SCORE;
  return SH_SUCCESS;
}

static const sh_plugin_vtable kVtable = {
    sizeof(sh_plugin_vtable),
    0,
    NULL,           /* pre_enqueue */
    NULL,           /* queue_sort_less */
    NULL,           /* pre_filter */
    NULL,           /* pre_filter_add_pod */
    NULL,           /* pre_filter_remove_pod */
    cplugin_filter, /* filter */
    NULL,           /* post_filter */
    NULL,           /* pre_score */
    cplugin_score,  /* score */
    NULL,           /* normalize_score */
    NULL,           /* reserve */
    NULL,           /* unreserve */
    NULL,           /* permit */
    NULL,           /* pre_bind */
    NULL,           /* bind */
    NULL,           /* post_bind */
    NULL,           /* events_to_register */
    NULL            /* queueing_hint */
};

static const sh_plugin_descriptor kDescriptor = {sizeof(sh_plugin_descriptor),
                                                 SH_ABI_MAJOR,
                                                 SH_ABI_MINOR,
                                                 CPLUGIN_NAME,
                                                 CPLUGIN_VERSION,
                                                 "{}",
                                                 0u,
                                                 0u,
                                                 cplugin_create,
                                                 cplugin_destroy,
                                                 &kVtable};

SH_PLUGIN_METADATA(cplugin_metadata, CPLUGIN_NAME, CPLUGIN_VERSION,
                   SH_POINT_FILTER | SH_POINT_SCORE, 0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
