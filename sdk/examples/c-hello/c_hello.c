/*
 * CHello: the plain C99 example plugin, against plugin.h alone, built with pkg-config.
 *
 *   Filter  rejects nodes labelled example.com/tier=batch (Unschedulable,
 *           "node(s) are reserved for batch work")
 *   Score   100 for nodes labelled example.com/tier=gold, 0 for any other node
 *
 * No args ("{}").
 */
#include <schedhost/plugin.h>

#include <stdlib.h>
#include <string.h>

#define CHELLO_NAME "CHello"
#define CHELLO_VERSION "1.0.0"

static const char kReserved[] = "node(s) are reserved for batch work";

typedef struct chello {
  const sh_host_api* api;
  sh_host* host;
  sh_id tier;  /* example.com/tier */
  sh_id batch; /* batch */
  sh_id gold;  /* gold */
} chello;

static sh_id intern_cstr(const sh_host_api* api, sh_host* host, const char* s) {
  return api->intern(host, s, strlen(s));
}

/* The value id of the label `key` on `node`, or SH_ID_NONE. */
static sh_id label_value(const sh_node* node, sh_id key) {
  uint32_t i;
  for (i = 0; i < node->label_count; ++i) {
    if (node->labels[i].key == key) {
      return node->labels[i].value;
    }
  }
  return SH_ID_NONE;
}

static void* chello_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  chello* p = (chello*)calloc(1, sizeof(chello));
  (void)args;
  if (p == NULL) {
    return NULL;
  }
  p->api = api;
  p->host = host;
  /* Strings are interned once here; Filter and Score compare integers. */
  p->tier = intern_cstr(api, host, "example.com/tier");
  p->batch = intern_cstr(api, host, "batch");
  p->gold = intern_cstr(api, host, "gold");
  return p;
}

static void chello_destroy(void* self) { free(self); }

static sh_code chello_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                             const sh_node_info* node_info, sh_status* status) {
  const chello* p = (const chello*)self;
  (void)cycle;
  (void)pod;
  if (label_value(node_info->node, p->tier) == p->batch) {
    p->api->status_add_reason(status, kReserved, sizeof(kReserved) - 1);
    return SH_UNSCHEDULABLE;
  }
  return SH_SUCCESS;
}

static sh_code chello_score(void* self, sh_cycle* cycle, const sh_pod* pod,
                            const sh_node_info* node_info, int64_t* score, sh_status* status) {
  const chello* p = (const chello*)self;
  (void)cycle;
  (void)pod;
  (void)status;
  *score = label_value(node_info->node, p->tier) == p->gold ? SH_MAX_NODE_SCORE : SH_MIN_NODE_SCORE;
  return SH_SUCCESS;
}

/* One entry per extension point, in plugin.h's order; NULL where CHello has nothing. */
static const sh_plugin_vtable kVtable = {
    sizeof(sh_plugin_vtable),
    0,
    NULL,          /* pre_enqueue */
    NULL,          /* queue_sort_less */
    NULL,          /* pre_filter */
    NULL,          /* pre_filter_add_pod */
    NULL,          /* pre_filter_remove_pod */
    chello_filter, /* filter */
    NULL,          /* post_filter */
    NULL,          /* pre_score */
    chello_score,  /* score */
    NULL,          /* normalize_score */
    NULL,          /* reserve */
    NULL,          /* unreserve */
    NULL,          /* permit */
    NULL,          /* pre_bind */
    NULL,          /* bind */
    NULL,          /* post_bind */
    NULL,          /* events_to_register */
    NULL           /* queueing_hint */
};

static const sh_plugin_descriptor kDescriptor = {sizeof(sh_plugin_descriptor),
                                                 SH_ABI_MAJOR,
                                                 SH_ABI_MINOR,
                                                 CHELLO_NAME,
                                                 CHELLO_VERSION,
                                                 "{}",
                                                 0u,
                                                 0u,
                                                 chello_create,
                                                 chello_destroy,
                                                 &kVtable,
                                                 NULL, /* kinds: reads no objects (ABI 1.2) */
                                                 0u,
                                                 0u};

/* What `schedhost plugin inspect` reads without running the plugin. */
SH_PLUGIN_METADATA(chello_metadata, CHELLO_NAME, CHELLO_VERSION, SH_POINT_FILTER | SH_POINT_SCORE,
                   0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
