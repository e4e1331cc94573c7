/*
 * ViewsProbe: a plugin of the raw C ABI that reads what ABI 1.3 added, for the SDK's tests
 * through the real host (views_plugin_test.cc): the volumes and resource claims of pods, the
 * declared features of nodes, the manifests of both (pod_manifest, node_manifest) and the PVCs
 * in use in the cycle's snapshot (snapshot_pvc_in_use). It reports what it read as the reasons
 * of its statuses.
 *
 *   PreFilter  Success, with one reason per entry:
 *                "<ns>/<pod>/<volume> source=<n> claim=<c> handle=<h> driver=<d> pool=<p>
 *                 monitors=<a,b> lun=<n> ro=<0|1>"  for each volume of the pending pod, then of
 *                                                   each pod of the snapshot
 *                "<ns>/<pod> resourceClaims=<n>"    for the same pods
 *                "inUse <claim>=<0|1>"              for each claim the pending pod's annotation
 *                                                   probe/claims lists (comma-separated), in
 *                                                   the pod's namespace
 *                "runAsUser=<n>"                    the pending pod's manifest's
 *                                                   spec.securityContext.runAsUser
 *                "kept=<0|1>"                       1 when a second pod_manifest call gives
 *                                                   the same tree
 *   Filter     the pending pod's manifest annotation probe/feature names a feature; a node that
 *              does not declare it (a binary search of its sorted declared features) is
 *              Unschedulable "node(s) lack declared feature <f>; features=<a,b>; zone=<z>",
 *              <z> being the node manifest's annotation probe/zone. Otherwise Success with the
 *              reason "features=<a,b>; zone=<z>".
 *
 * create refuses a host older than 1.3 (NULL). PreFilter and Filter answer Error when a view is
 * smaller than the 1.3 one.
 */
#include <schedhost/plugin.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VP_NAME "ViewsProbe"
#define VP_VERSION "0.1.0"
/* An sh_str as the two arguments of "%.*s"; an empty one may have a NULL ptr. */
#define VP_STR(s) (int)(s).len, ((s).ptr != NULL ? (s).ptr : "")

typedef struct vp_plugin {
  const sh_host_api* api;
  sh_host* host;
} vp_plugin;

/* Adds one reason, printf-style. */
static void vp_reason(const vp_plugin* p, sh_status* status, const char* fmt, ...) {
  char text[1024];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (n > 0) {
    p->api->status_add_reason(status, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
  }
}

/* Joins `n` strings with ',' into `out`. */
static const char* vp_join(char* out, size_t cap, const sh_str* items, uint32_t n) {
  size_t used = 0;
  uint32_t i;
  out[0] = '\0';
  for (i = 0; i < n && used + 1 < cap; ++i) {
    int w = snprintf(out + used, cap - used, "%s%.*s", i > 0 ? "," : "", VP_STR(items[i]));
    if (w < 0 || (size_t)w >= cap - used) {
      break;
    }
    used += (size_t)w;
  }
  return out;
}

static void* vp_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  vp_plugin* p;
  (void)args;
  if (api->abi_minor < 3 ||
      api->struct_size < offsetof(sh_host_api, node_manifest) + sizeof(api->node_manifest)) {
    return NULL; /* a host without the 1.3 services */
  }
  p = (vp_plugin*)calloc(1, sizeof(vp_plugin));
  if (p == NULL) {
    return NULL;
  }
  p->api = api;
  p->host = host;
  return p;
}

static void vp_destroy(void* self) { free(self); }

static int vp_pod_is_1_3(const sh_pod* pod) {
  return pod->struct_size >= offsetof(sh_pod, resource_claim_count) + sizeof(uint32_t);
}

/* The reasons for one pod's volumes and resource claims. */
static void vp_report_pod(const vp_plugin* p, sh_status* status, const sh_pod* pod) {
  char monitors[256];
  uint32_t i;
  for (i = 0; i < pod->volume_count; ++i) {
    const sh_volume* v = &pod->volumes[i];
    vp_reason(p, status,
              "%.*s/%.*s/%.*s source=%d claim=%.*s handle=%.*s driver=%.*s pool=%.*s monitors=%s "
              "lun=%d ro=%d",
              VP_STR(pod->namespace_), VP_STR(pod->name), VP_STR(v->name), v->source,
              VP_STR(v->claim), VP_STR(v->handle), VP_STR(v->driver), VP_STR(v->pool),
              vp_join(monitors, sizeof monitors, v->monitors, v->monitor_count), v->lun,
              v->read_only);
  }
  vp_reason(p, status, "%.*s/%.*s resourceClaims=%u", VP_STR(pod->namespace_),
            VP_STR(pod->name), (unsigned)pod->resource_claim_count);
}

/* The string at `path` of a JSON tree; {"", 0} when absent. */
static sh_str vp_string_at(const vp_plugin* p, const sh_json* root, const char* path) {
  return p->api->json_string(p->api->json_path(root, path, strlen(path)));
}

static sh_code vp_pre_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                             sh_prefilter_result* result, sh_status* status) {
  const vp_plugin* p = (const vp_plugin*)self;
  const sh_host_api* api = p->api;
  const sh_snapshot* snap = api->cycle_snapshot(cycle);
  const sh_json* manifest;
  sh_str claims;
  size_t i, n, start;
  uint32_t j;
  (void)result;
  if (!vp_pod_is_1_3(pod)) {
    api->status_add_reason(status, "pod view smaller than 1.3's", 27);
    return SH_ERROR;
  }
  vp_report_pod(p, status, pod);
  for (i = 0, n = api->snapshot_node_count(snap); i < n; ++i) {
    const sh_node_info* ni = api->snapshot_node_at(snap, i);
    for (j = 0; j < ni->pod_count; ++j) {
      vp_report_pod(p, status, ni->pods[j]);
    }
  }
  manifest = api->pod_manifest(p->host, pod);
  claims = vp_string_at(p, manifest, "metadata.annotations.probe/claims");
  for (start = 0, i = 0; i <= claims.len; ++i) {
    if (i == claims.len || claims.ptr[i] == ',') {
      if (i > start) {
        int used = api->snapshot_pvc_in_use(snap, pod->namespace_.ptr, pod->namespace_.len,
                                            claims.ptr + start, i - start);
        vp_reason(p, status, "inUse %.*s=%d", (int)(i - start), claims.ptr + start, used);
      }
      start = i + 1;
    }
  }
  vp_reason(p, status, "runAsUser=%lld",
            (long long)api->json_int(api->json_path(manifest, "spec.securityContext.runAsUser",
                                                    strlen("spec.securityContext.runAsUser"))));
  vp_reason(p, status, "kept=%d", api->pod_manifest(p->host, pod) == manifest);
  return SH_SUCCESS;
}

static int vp_compare(sh_str a, const char* b, size_t b_len) {
  size_t n = a.len < b_len ? a.len : b_len;
  int c = n == 0 ? 0 : memcmp(a.ptr, b, n);
  return c != 0 ? c : (a.len < b_len ? -1 : a.len > b_len ? 1 : 0);
}

/* Whether the node declares `name`: a binary search, the host keeps them sorted by bytes. */
static int vp_declares(const sh_node* node, const char* name, size_t len) {
  uint32_t lo = 0, hi = node->declared_feature_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int c = vp_compare(node->declared_features[mid], name, len);
    if (c == 0) {
      return 1;
    }
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return 0;
}

static sh_code vp_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                         const sh_node_info* node_info, sh_status* status) {
  const vp_plugin* p = (const vp_plugin*)self;
  const sh_node* node = node_info->node;
  char features[256];
  sh_str wanted, zone;
  (void)cycle;
  if (node->struct_size < offsetof(sh_node, declared_feature_count) + sizeof(uint32_t)) {
    p->api->status_add_reason(status, "node view smaller than 1.3's", 28);
    return SH_ERROR;
  }
  wanted = vp_string_at(p, p->api->pod_manifest(p->host, pod),
                        "metadata.annotations.probe/feature");
  zone = vp_string_at(p, p->api->node_manifest(p->host, node), "metadata.annotations.probe/zone");
  vp_join(features, sizeof features, node->declared_features, node->declared_feature_count);
  if (!vp_declares(node, wanted.ptr, wanted.len)) {
    vp_reason(p, status, "node(s) lack declared feature %.*s; features=%s; zone=%.*s",
              VP_STR(wanted), features, VP_STR(zone));
    return SH_UNSCHEDULABLE;
  }
  vp_reason(p, status, "features=%s; zone=%.*s", features, VP_STR(zone));
  return SH_SUCCESS;
}

static const sh_plugin_vtable kVtable = {
    sizeof(sh_plugin_vtable),
    0u,
    NULL,          /* pre_enqueue */
    NULL,          /* queue_sort_less */
    vp_pre_filter, /* pre_filter */
    NULL,          /* pre_filter_add_pod */
    NULL,          /* pre_filter_remove_pod */
    vp_filter,     /* filter */
    NULL,          /* post_filter */
    NULL,          /* pre_score */
    NULL,          /* score */
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
                                                 VP_NAME,
                                                 VP_VERSION,
                                                 "{}",
                                                 0u,
                                                 0u,
                                                 vp_create,
                                                 vp_destroy,
                                                 &kVtable,
                                                 NULL,
                                                 0u,
                                                 0u};

SH_PLUGIN_METADATA(vp_metadata, VP_NAME, VP_VERSION, SH_POINT_PRE_FILTER | SH_POINT_FILTER, 0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
