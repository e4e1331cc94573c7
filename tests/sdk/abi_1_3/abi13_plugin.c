/*
 * Abi13Gate: a plugin built against the frozen ABI 1.3 header (include/schedhost/plugin.h in
 * this directory), never the current one. Its host-table struct is the 1.3 size; the host's is
 * larger since 1.4, and the plugin must keep working on it reading only the prefix it knows.
 *
 *   PreFilter  checks that the host's table has the 1.3 slots (object_kind_version is the
 *              last), as a 1.3 plugin must before calling them; Error "host table lacks the 1.3
 *              services" otherwise. Then reads the pod's manifest (pod_manifest, 1.3): Success
 *              when metadata.annotations["abi-1-3/allowed"] is "yes", Unschedulable "pod is
 *              not allowed by a 1.3 plugin" otherwise.
 *   Filter     rejects nodes whose manifest (node_manifest, 1.3) has spec.unschedulable set:
 *              "node(s) were rejected by a 1.3 plugin".
 */
#include <schedhost/plugin.h>

#include <stdlib.h>
#include <string.h>

#if SH_ABI_MAJOR != 1 || SH_ABI_MINOR != 3
#error "abi13_plugin.c must be built against the frozen ABI 1.3 header"
#endif

#define ABI13_NAME "Abi13Gate"
#define ABI13_VERSION "1.3.0"

static const char kRejected[] = "node(s) were rejected by a 1.3 plugin";
static const char kNotAllowed[] = "pod is not allowed by a 1.3 plugin";
static const char kNoSlots[] = "host table lacks the 1.3 services";

typedef struct abi13 {
  const sh_host_api* api;
  sh_host* host;
} abi13;

static void* abi13_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  abi13* p = (abi13*)calloc(1, sizeof(abi13));
  (void)args;
  if (p == NULL) {
    return NULL;
  }
  p->api = api;
  p->host = host;
  return p;
}

static void abi13_destroy(void* self) { free(self); }

static sh_code abi13_pre_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                                sh_prefilter_result* result, sh_status* status) {
  const abi13* p = (const abi13*)self;
  const sh_host_api* api = p->api;
  const size_t slots_end =
      offsetof(sh_host_api, object_kind_version) + sizeof(api->object_kind_version);
  const sh_json* allowed;
  sh_str value;
  (void)cycle;
  (void)result;
  if (api->abi_minor < 3 || api->struct_size < slots_end) {
    api->status_add_reason(status, kNoSlots, sizeof(kNoSlots) - 1);
    return SH_ERROR;
  }
  allowed = api->json_get(api->json_path(api->pod_manifest(p->host, pod), "metadata.annotations",
                                         strlen("metadata.annotations")),
                          "abi-1-3/allowed", strlen("abi-1-3/allowed"));
  value = api->json_string(allowed);
  if (value.len == 3 && memcmp(value.ptr, "yes", 3) == 0) {
    return SH_SUCCESS;
  }
  api->status_add_reason(status, kNotAllowed, sizeof(kNotAllowed) - 1);
  return SH_UNSCHEDULABLE;
}

static sh_code abi13_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                            const sh_node_info* node_info, sh_status* status) {
  const abi13* p = (const abi13*)self;
  const sh_host_api* api = p->api;
  const sh_json* manifest = api->node_manifest(p->host, node_info->node);
  (void)cycle;
  (void)pod;
  if (api->json_bool(
          api->json_path(manifest, "spec.unschedulable", strlen("spec.unschedulable")))) {
    api->status_add_reason(status, kRejected, sizeof(kRejected) - 1);
    return SH_UNSCHEDULABLE;
  }
  return SH_SUCCESS;
}

static const sh_plugin_vtable kVtable = {
    sizeof(sh_plugin_vtable),
    0,
    NULL,             /* pre_enqueue */
    NULL,             /* queue_sort_less */
    abi13_pre_filter, /* pre_filter */
    NULL,             /* pre_filter_add_pod */
    NULL,             /* pre_filter_remove_pod */
    abi13_filter,     /* filter */
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

static const sh_plugin_descriptor kDescriptor = {sizeof(sh_plugin_descriptor),
                                                 SH_ABI_MAJOR,
                                                 SH_ABI_MINOR,
                                                 ABI13_NAME,
                                                 ABI13_VERSION,
                                                 "{}",
                                                 0u,
                                                 0u,
                                                 abi13_create,
                                                 abi13_destroy,
                                                 &kVtable,
                                                 NULL,
                                                 0u,
                                                 0u};

SH_PLUGIN_METADATA(abi13_metadata, ABI13_NAME, ABI13_VERSION, SH_POINT_PRE_FILTER | SH_POINT_FILTER,
                   0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
