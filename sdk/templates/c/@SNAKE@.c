/*
 * @NAME@: a schedhost plugin in C99, against <schedhost/plugin.h> alone.
 *
 *   Filter  keeps pods off nodes labelled example.com/@KEBAB@=avoid (Unschedulable)
 *
 * To add an extension point, fill its slot in kVtable (plugin.h documents each one) and add
 * its SH_POINT_* bit to the metadata.
 */
#include <schedhost/plugin.h>

#include <stdlib.h>
#include <string.h>

#define PLUGIN_NAME "@NAME@"
#define PLUGIN_VERSION "0.1.0"

static const char kAvoided[] = "node(s) are avoided by @NAME@";

typedef struct @SNAKE@_state {
  const sh_host_api* api;
  sh_id key;   /* example.com/@KEBAB@ */
  sh_id avoid; /* avoid */
} @SNAKE@_state;

static sh_id intern_cstr(const sh_host_api* api, sh_host* host, const char* s) {
  return api->intern(host, s, strlen(s));
}

static void* @SNAKE@_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  @SNAKE@_state* p = (@SNAKE@_state*)calloc(1, sizeof(@SNAKE@_state));
  (void)args;
  if (p == NULL) {
    return NULL;
  }
  p->api = api;
  /* Strings are interned once here; the filter compares integers. */
  p->key = intern_cstr(api, host, "example.com/@KEBAB@");
  p->avoid = intern_cstr(api, host, "avoid");
  return p;
}

static void @SNAKE@_destroy(void* self) { free(self); }

static sh_code @SNAKE@_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                              const sh_node_info* node_info, sh_status* status) {
  const @SNAKE@_state* p = (const @SNAKE@_state*)self;
  const sh_node* node = node_info->node;
  uint32_t i;
  (void)cycle;
  (void)pod;
  for (i = 0; i < node->label_count; ++i) {
    if (node->labels[i].key == p->key && node->labels[i].value == p->avoid) {
      p->api->status_add_reason(status, kAvoided, sizeof(kAvoided) - 1);
      return SH_UNSCHEDULABLE;
    }
  }
  return SH_SUCCESS;
}

/* One slot per extension point, in plugin.h's order; NULL where the plugin has nothing. */
static const sh_plugin_vtable kVtable = {
    sizeof(sh_plugin_vtable),
    0,
    NULL,            /* pre_enqueue */
    NULL,            /* queue_sort_less */
    NULL,            /* pre_filter */
    NULL,            /* pre_filter_add_pod */
    NULL,            /* pre_filter_remove_pod */
    @SNAKE@_filter, /* filter */
    NULL,            /* post_filter */
    NULL,            /* pre_score */
    NULL,            /* score */
    NULL,            /* normalize_score */
    NULL,            /* reserve */
    NULL,            /* unreserve */
    NULL,            /* permit */
    NULL,            /* pre_bind */
    NULL,            /* bind */
    NULL,            /* post_bind */
    NULL,            /* events_to_register */
    NULL             /* queueing_hint */
};

static const sh_plugin_descriptor kDescriptor = {sizeof(sh_plugin_descriptor),
                                                 SH_ABI_MAJOR,
                                                 SH_ABI_MINOR,
                                                 PLUGIN_NAME,
                                                 PLUGIN_VERSION,
                                                 "{}",
                                                 0u,
                                                 0u,
                                                 @SNAKE@_create,
                                                 @SNAKE@_destroy,
                                                 &kVtable,
                                                 NULL, /* kinds: reads no objects (ABI 1.2) */
                                                 0u,
                                                 0u};

/* What `schedhost plugin inspect` reads without running the plugin. */
SH_PLUGIN_METADATA(@SNAKE@_metadata, PLUGIN_NAME, PLUGIN_VERSION, SH_POINT_FILTER, 0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
