/*
 * TestObjects: a plugin of the raw C ABI that reads, hears about and writes an object of a
 * declared kind (ABI 1.2), for the scheduler's end-to-end object tests.
 *
 *   kind 0   example.com/v1 widgets (Widget), namespaced; writes: status updates.
 *   PreFilter  the pod passes only while the Widget "gate" of its namespace exists with
 *              spec.open true (read through the cycle); otherwise Unschedulable
 *              "widget gate is closed".
 *   events     Add and Update of kind 0, with a hint: Queue only when the new Widget is open.
 *   PreBind    patches the gate's status with {"status":{"lastPod":"<pod name>"}} (merge).
 */
#include <schedhost/plugin.h>

#include <stdio.h>
#include <string.h>

#define TO_NAME "TestObjects"
#define TO_VERSION "0.1.0"

typedef struct to_plugin {
  const sh_host_api* api;
  sh_host* host;
} to_plugin;

static to_plugin g_plugin;

static void* to_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  (void)args;
  if (api->abi_minor < 2) {
    return NULL; /* the host is older than the services this plugin needs */
  }
  g_plugin.api = api;
  g_plugin.host = host;
  return &g_plugin;
}

static void to_destroy(void* self) { (void)self; }

static int gate_open(const to_plugin* p, const sh_object* o) {
  if (o == NULL) {
    return 0;
  }
  const sh_json* open = p->api->json_path(o->root, "spec.open", 9);
  return p->api->json_type(open) == SH_ARGS_BOOL && p->api->json_bool(open);
}

static sh_code to_pre_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                             sh_prefilter_result* result, sh_status* status) {
  (void)result;
  const to_plugin* p = (const to_plugin*)self;
  const sh_object* gate =
      p->api->object_get(p->host, cycle, 0, pod->namespace_.ptr, pod->namespace_.len, "gate", 4);
  if (!gate_open(p, gate)) {
    static const char kReason[] = "widget gate is closed";
    p->api->status_add_reason(status, kReason, sizeof(kReason) - 1);
    return SH_UNSCHEDULABLE;
  }
  return SH_SUCCESS;
}

static sh_code to_pre_bind(void* self, sh_cycle* cycle, const sh_pod* pod, sh_str node_name,
                           sh_status* status) {
  (void)node_name;
  const to_plugin* p = (const to_plugin*)self;
  char body[512];
  int n = snprintf(body, sizeof body, "{\"status\":{\"lastPod\":\"%.*s\"}}", (int)pod->name.len,
                   pod->name.ptr);
  if (n < 0 || (size_t)n >= sizeof body) {
    return SH_ERROR;
  }
  sh_object_write w;
  memset(&w, 0, sizeof w);
  w.struct_size = sizeof w;
  w.verb = SH_VERB_UPDATE_STATUS;
  w.kind = 0;
  w.patch_type = SH_PATCH_MERGE;
  w.namespace_ = pod->namespace_;
  w.name.ptr = "gate";
  w.name.len = 4;
  w.body.ptr = body;
  w.body.len = (size_t)n;
  return p->api->object_write(p->host, cycle, &w, status);
}

static size_t to_events(void* self, sh_event_registration* out, size_t capacity) {
  (void)self;
  if (capacity >= 1) {
    out[0].resource = SH_RESOURCE_DECLARED_KIND + 0;
    out[0].actions = SH_ACTION_ADD | SH_ACTION_UPDATE;
    out[0].has_hint = 1;
    out[0].reserved_ = 0;
  }
  return 1;
}

static sh_queueing_hint to_hint(void* self, size_t index, const sh_pod* pod,
                                const sh_event_objects* event) {
  (void)index;
  (void)pod;
  const to_plugin* p = (const to_plugin*)self;
  if (event->struct_size < sizeof(sh_event_objects) || event->kind != 0) {
    return SH_QUEUE;
  }
  return gate_open(p, event->new_object) ? SH_QUEUE : SH_QUEUE_SKIP;
}

static const sh_plugin_vtable kVtable = {
    sizeof(sh_plugin_vtable),
    0u,
    NULL,          /* pre_enqueue */
    NULL,          /* queue_sort_less */
    to_pre_filter, /* pre_filter */
    NULL,          /* pre_filter_add_pod */
    NULL,          /* pre_filter_remove_pod */
    NULL,          /* filter */
    NULL,          /* post_filter */
    NULL,          /* pre_score */
    NULL,          /* score */
    NULL,          /* normalize_score */
    NULL,          /* reserve */
    NULL,          /* unreserve */
    NULL,          /* permit */
    to_pre_bind,   /* pre_bind */
    NULL,          /* bind */
    NULL,          /* post_bind */
    to_events,     /* events_to_register */
    to_hint        /* queueing_hint */
};

static const sh_object_kind kKinds[] = {
    {sizeof(sh_object_kind), SH_VERB_UPDATE_STATUS, "example.com", "v1", "widgets", "Widget", 1, 0,
     NULL, NULL},
};

static const sh_plugin_descriptor kDescriptor = {sizeof(sh_plugin_descriptor),
                                                 SH_ABI_MAJOR,
                                                 SH_ABI_MINOR,
                                                 TO_NAME,
                                                 TO_VERSION,
                                                 "{}",
                                                 0u,
                                                 0u,
                                                 to_create,
                                                 to_destroy,
                                                 &kVtable,
                                                 kKinds,
                                                 1u,
                                                 0u};

SH_PLUGIN_METADATA(to_metadata, TO_NAME, TO_VERSION, SH_POINT_PRE_FILTER | SH_POINT_PRE_BIND, 0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
