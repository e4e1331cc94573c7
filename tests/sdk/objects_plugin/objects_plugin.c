/*
 * ObjectsProbe: a plugin of the raw C ABI that calls every object service of ABI 1.2, for the
 * SDK's tests through the real host (objects_plugin_test.cc). What it reads it writes down in a
 * report, and the report reaches the test through its writes.
 *
 *   kind 0   scheduling.x-k8s.io/v1alpha1 podgroups (PodGroup), namespaced; every verb.
 *   kind 1   example.com/v1 clusterwidgets (ClusterWidget), cluster-scoped, read only, narrowed
 *            to the label selector tier=gold.
 *
 * The pod's label probe/group names its PodGroup ("g" below), in the pod's namespace.
 *
 *   PreFilter  reads g through the cycle (Unschedulable "podgroup <ns>/<g> not found" when there
 *              is none) and starts the report: its fields through the view and the JSON tree,
 *              lists by selector, the widgets, the object's JSON text.
 *   Reserve    assumes g with spec.minMember 99, reads it back, restores it, reads it again,
 *              and assumes a PodGroup that is not stored; then creates <g>-copy and puts g's
 *              status {"phase":"Reserved"}.
 *   Permit     JSON-patches g's spec.minMember to 3, merge-patches its status to
 *              {"phase":"Permitted"}, and tries to patch a widget (kind 1 declares no verb).
 *   PreBind    deletes <g>-copy, puts g back with an annotation, then merge-patches g's
 *              annotation probe/report with the whole report.
 *   events     Add and Update of kind 0, with a hint: Queue only when the event's new object is
 *              the pod's group with spec.ready true, and (an Update) its old object had it false.
 *
 * Report entries are key=value joined by ';', every value in [A-Za-z0-9,./-], so that the report
 * needs no escaping inside JSON.
 */
#include <schedhost/plugin.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OP_NAME "ObjectsProbe"
#define OP_VERSION "0.1.0"
#define OP_GROUP_LABEL "probe/group"
#define OP_REPORT_CAP 2048

enum { kPodGroups = 0, kWidgets = 1 };

typedef struct op_plugin {
  const sh_host_api* api;
  sh_host* host;
  sh_id report_key;
} op_plugin;

/* The cycle-state entry: the report so far. */
typedef struct op_report {
  char text[OP_REPORT_CAP];
  size_t len;
} op_report;

static void* op_report_clone(const void* data) {
  op_report* copy = (op_report*)malloc(sizeof(op_report));
  if (copy != NULL) {
    memcpy(copy, data, sizeof(op_report));
  }
  return copy;
}

static void op_report_free(void* data) { free(data); }

static const sh_state_ops kReportOps = {op_report_clone, op_report_free};

static void op_add(op_report* r, const char* fmt, ...) {
  va_list ap;
  int n;
  if (r->len + 1 >= sizeof r->text) {
    return;
  }
  if (r->len > 0) {
    r->text[r->len++] = ';';
  }
  va_start(ap, fmt);
  n = vsnprintf(r->text + r->len, sizeof r->text - r->len, fmt, ap);
  va_end(ap);
  if (n > 0) {
    r->len += (size_t)n < sizeof r->text - r->len ? (size_t)n : sizeof r->text - r->len - 1;
  }
}

static int op_equal(sh_str s, const char* text) {
  return s.len == strlen(text) && (s.len == 0 || memcmp(s.ptr, text, s.len) == 0);
}

/* The value of label `key` of a pod or an object; {NULL, 0} when absent. */
static sh_str op_label(const sh_label* labels, uint32_t count, const char* key) {
  sh_str none = {NULL, 0};
  uint32_t i;
  for (i = 0; i < count; ++i) {
    if (op_equal(labels[i].key_str, key)) {
      return labels[i].value_str;
    }
  }
  return none;
}

static void* op_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  op_plugin* p;
  (void)args;
  if (api->abi_minor < 2 ||
      api->struct_size < offsetof(sh_host_api, object_restore) + sizeof(api->object_restore)) {
    return NULL; /* a host without the object services */
  }
  p = (op_plugin*)calloc(1, sizeof(op_plugin));
  if (p == NULL) {
    return NULL;
  }
  p->api = api;
  p->host = host;
  p->report_key = api->intern(host, "ObjectsProbe/report", strlen("ObjectsProbe/report"));
  return p;
}

static void op_destroy(void* self) { free(self); }

static op_report* op_report_of(const op_plugin* p, sh_cycle* cycle) {
  return (op_report*)p->api->cycle_read(cycle, p->report_key);
}

/* The pod's group and namespace, or 0 when it has none. */
static int op_group_of(const sh_pod* pod, sh_str* group) {
  *group = op_label(pod->labels, pod->label_count, OP_GROUP_LABEL);
  return group->len > 0;
}

static const sh_object* op_get(const op_plugin* p, sh_cycle* cycle, const sh_pod* pod,
                               sh_str name) {
  return p->api->object_get(p->host, cycle, kPodGroups, pod->namespace_.ptr, pod->namespace_.len,
                            name.ptr, name.len);
}

static int64_t op_min_member(const op_plugin* p, const sh_object* o) {
  return p->api->json_int(p->api->json_path(o->root, "spec.minMember", 14));
}

/* Appends key=<names of the listed objects, joined by ','>. */
static void op_add_names(op_report* r, const char* key, const sh_object* const* list, size_t n) {
  char names[256];
  size_t used = 0, i;
  names[0] = '\0';
  for (i = 0; i < n && used + 1 < sizeof names; ++i) {
    int w = snprintf(names + used, sizeof names - used, "%s%.*s", i > 0 ? "," : "",
                     (int)list[i]->name.len, list[i]->name.ptr);
    if (w < 0 || (size_t)w >= sizeof names - used) {
      break;
    }
    used += (size_t)w;
  }
  op_add(r, "%s=%s", key, names);
}

static sh_code op_pre_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                             sh_prefilter_result* result, sh_status* status) {
  const op_plugin* p = (const op_plugin*)self;
  const sh_host_api* api = p->api;
  const sh_object* g;
  const sh_object* const* list = NULL;
  const sh_json *root, *spec, *tags;
  op_report* r;
  sh_str group, s;
  size_t n, json_len;
  char* json;
  (void)result;
  if (!op_group_of(pod, &group)) {
    return SH_SUCCESS;
  }
  g = op_get(p, cycle, pod, group);
  if (g == NULL) {
    char why[300];
    int w = snprintf(why, sizeof why, "podgroup %.*s/%.*s not found", (int)pod->namespace_.len,
                     pod->namespace_.ptr, (int)group.len, group.ptr);
    api->status_add_reason(status, why, w > 0 ? (size_t)w : 0);
    return SH_UNSCHEDULABLE;
  }
  r = (op_report*)calloc(1, sizeof(op_report));
  if (r == NULL) {
    return SH_ERROR;
  }
  /* The view. */
  op_add(r, "kind=%.*s", (int)g->kind.len, g->kind.ptr);
  op_add(r, "uid=%.*s", (int)g->uid.len, g->uid.ptr);
  op_add(r, "rv=%.*s", (int)g->resource_version.len, g->resource_version.ptr);
  s = op_label(g->labels, g->label_count, "team");
  op_add(r, "team=%.*s", (int)s.len, s.ptr);
  op_add(r, "created=%d", g->creation_unix_nanos > 0);
  op_add(r, "assumed=%d", g->assumed);
  /* The JSON tree, every accessor. */
  root = g->root;
  spec = api->json_get(root, "spec", 4);
  tags = api->json_path(root, "spec.tags", 9);
  op_add(r, "root=%d", api->json_type(root));
  op_add(r, "min=%lld", (long long)op_min_member(p, g));
  s = api->json_string(api->json_get(api->json_get(root, "metadata", 8), "name", 4));
  op_add(r, "name=%.*s", (int)s.len, s.ptr);
  s = api->json_string(api->json_at(tags, 1));
  op_add(r, "tags=%u/%.*s", (unsigned)api->json_size(tags), (int)s.len, s.ptr);
  s = api->json_key_at(spec, 0);
  op_add(r, "key0=%.*s", (int)s.len, s.ptr);
  op_add(r, "ratio=%.2f", api->json_double(api->json_get(spec, "ratio", 5)));
  op_add(r, "gang=%d", api->json_bool(api->json_get(spec, "gang", 4)));
  op_add(r, "nothing=%d", api->json_path(root, "spec.tags.7", 11) == NULL);
  /* Lists: by label selector, every namespace, a selector that does not parse, kind 1. */
  n = api->object_list(p->host, cycle, kPodGroups, pod->namespace_.ptr, pod->namespace_.len,
                       "team=red", 8, &list);
  op_add_names(r, "red", list, n);
  n = api->object_list(p->host, cycle, kPodGroups, "", 0, "", 0, &list);
  op_add_names(r, "all", list, n);
  op_add(r, "bad=%u", (unsigned)api->object_list(p->host, cycle, kPodGroups, "", 0, "team in (",
                                                  9, &list));
  n = api->object_list(p->host, cycle, kWidgets, "", 0, "", 0, &list);
  op_add_names(r, "widgets", list, n);
  op_add(r, "nope=%d", api->object_get(p->host, cycle, kPodGroups, pod->namespace_.ptr,
                                       pod->namespace_.len, "nope", 4) == NULL);
  /* The JSON text: measured, then read. */
  json_len = api->object_json(g, NULL, 0);
  json = (char*)malloc(json_len + 1);
  if (json != NULL) {
    size_t got = api->object_json(g, json, json_len + 1);
    json[json_len] = '\0';
    op_add(r, "json=%d", got == json_len && json_len > 0 && json[0] == '{' &&
                             strstr(json, "\"minMember\"") != NULL);
    free(json);
  }
  api->cycle_write(cycle, p->report_key, r, &kReportOps);
  return SH_SUCCESS;
}

/* One write; appends key=<code> to the report. */
static sh_code op_write(const op_plugin* p, sh_cycle* cycle, op_report* r, const char* key,
                        uint32_t verb, uint32_t kind, int32_t patch_type, sh_str ns, sh_str name,
                        const char* body) {
  sh_status* st = p->api->status_create();
  sh_object_write w;
  sh_code code;
  memset(&w, 0, sizeof w);
  w.struct_size = sizeof w;
  w.verb = verb;
  w.kind = kind;
  w.patch_type = patch_type;
  w.namespace_ = ns;
  w.name = name;
  w.body.ptr = body;
  w.body.len = body != NULL ? strlen(body) : 0;
  code = p->api->object_write(p->host, cycle, &w, st);
  if (r != NULL) {
    op_add(r, "%s=%d", key, (int)code);
  }
  p->api->status_destroy(st);
  return code;
}

static sh_code op_reserve(void* self, sh_cycle* cycle, const sh_pod* pod, sh_str node_name,
                          sh_status* status) {
  const op_plugin* p = (const op_plugin*)self;
  const sh_host_api* api = p->api;
  op_report* r = op_report_of(p, cycle);
  const sh_object* g;
  sh_status* st;
  sh_code code;
  sh_str group, none = {NULL, 0};
  char body[1024], copy[300];
  int n;
  (void)node_name;
  (void)status;
  if (!op_group_of(pod, &group) || r == NULL) {
    return SH_SUCCESS;
  }
  g = op_get(p, NULL, pod, group);
  if (g == NULL) {
    return SH_SUCCESS;
  }
  /* Assume a changed version, read it through the cycle and without, restore it. */
  n = snprintf(body, sizeof body,
               "{\"apiVersion\":\"scheduling.x-k8s.io/v1alpha1\",\"kind\":\"PodGroup\","
               "\"metadata\":{\"namespace\":\"%.*s\",\"name\":\"%.*s\",\"resourceVersion\":\"%.*s\"},"
               "\"spec\":{\"minMember\":99}}",
               (int)g->namespace_.len, g->namespace_.ptr, (int)g->name.len, g->name.ptr,
               (int)g->resource_version.len, g->resource_version.ptr);
  st = api->status_create();
  op_add(r, "assume=%d", (int)api->object_assume(p->host, kPodGroups, body, (size_t)n, st));
  g = op_get(p, cycle, pod, group);
  op_add(r, "assumed-cycle=%d/%lld", g != NULL ? g->assumed : -1,
         g != NULL ? (long long)op_min_member(p, g) : -1LL);
  g = op_get(p, NULL, pod, group);
  op_add(r, "assumed-latest=%d/%lld", g != NULL ? g->assumed : -1,
         g != NULL ? (long long)op_min_member(p, g) : -1LL);
  api->object_restore(p->host, kPodGroups, pod->namespace_.ptr, pod->namespace_.len, group.ptr,
                      group.len);
  g = op_get(p, cycle, pod, group);
  op_add(r, "restored=%d/%lld", g != NULL ? g->assumed : -1,
         g != NULL ? (long long)op_min_member(p, g) : -1LL);
  n = snprintf(body, sizeof body,
               "{\"metadata\":{\"namespace\":\"%.*s\",\"name\":\"not-stored\"},\"spec\":{}}",
               (int)pod->namespace_.len, pod->namespace_.ptr);
  code = api->object_assume(p->host, kPodGroups, body, (size_t)n, st);
  op_add(r, "assume-missing=%d/%u", (int)code, (unsigned)api->status_reason_count(st));
  api->status_destroy(st);

  /* Writes: create a copy, put the status. */
  snprintf(copy, sizeof copy, "%.*s-copy", (int)group.len, group.ptr);
  snprintf(body, sizeof body,
           "{\"apiVersion\":\"scheduling.x-k8s.io/v1alpha1\",\"kind\":\"PodGroup\","
           "\"metadata\":{\"name\":\"%s\"},\"spec\":{\"minMember\":1}}",
           copy);
  op_write(p, cycle, r, "create", SH_VERB_CREATE, kPodGroups, SH_PATCH_NONE, pod->namespace_,
           none, body);
  snprintf(body, sizeof body,
           "{\"apiVersion\":\"scheduling.x-k8s.io/v1alpha1\",\"kind\":\"PodGroup\","
           "\"metadata\":{\"namespace\":\"%.*s\",\"name\":\"%.*s\"},"
           "\"status\":{\"phase\":\"Reserved\"}}",
           (int)pod->namespace_.len, pod->namespace_.ptr, (int)group.len, group.ptr);
  op_write(p, cycle, r, "put-status", SH_VERB_UPDATE_STATUS, kPodGroups, SH_PATCH_NONE, none,
           none, body);
  return SH_SUCCESS;
}

static sh_code op_permit(void* self, sh_cycle* cycle, const sh_pod* pod, sh_str node_name,
                         int64_t* timeout_ms, sh_status* status) {
  const op_plugin* p = (const op_plugin*)self;
  op_report* r = op_report_of(p, cycle);
  sh_str group, widget = {"w-gold", 6}, none = {NULL, 0};
  (void)node_name;
  (void)timeout_ms;
  (void)status;
  if (!op_group_of(pod, &group) || r == NULL) {
    return SH_SUCCESS;
  }
  op_write(p, cycle, r, "json-patch", SH_VERB_PATCH, kPodGroups, SH_PATCH_JSON, pod->namespace_,
           group, "[{\"op\":\"replace\",\"path\":\"/spec/minMember\",\"value\":3}]");
  op_write(p, cycle, r, "patch-status", SH_VERB_UPDATE_STATUS, kPodGroups, SH_PATCH_MERGE,
           pod->namespace_, group, "{\"status\":{\"phase\":\"Permitted\"}}");
  op_write(p, cycle, r, "widget", SH_VERB_PATCH, kWidgets, SH_PATCH_MERGE, none, widget,
           "{\"metadata\":{\"labels\":{\"touched\":\"yes\"}}}");
  return SH_SUCCESS;
}

static sh_code op_pre_bind(void* self, sh_cycle* cycle, const sh_pod* pod, sh_str node_name,
                           sh_status* status) {
  const op_plugin* p = (const op_plugin*)self;
  op_report* r = op_report_of(p, cycle);
  const sh_object* g;
  sh_str group, copy_name;
  char body[OP_REPORT_CAP + 256], copy[300];
  int n;
  (void)node_name;
  (void)status;
  if (!op_group_of(pod, &group) || r == NULL) {
    return SH_SUCCESS;
  }
  n = snprintf(copy, sizeof copy, "%.*s-copy", (int)group.len, group.ptr);
  copy_name.ptr = copy;
  copy_name.len = (size_t)n;
  op_write(p, cycle, r, "delete", SH_VERB_DELETE, kPodGroups, SH_PATCH_NONE, pod->namespace_,
           copy_name, NULL);
  /* Put g back as the cycle read it, with an annotation: a conflict wherever the writes above
   * were applied (its resourceVersion is behind), success where they were only recorded. */
  g = op_get(p, cycle, pod, group);
  if (g != NULL) {
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"scheduling.x-k8s.io/v1alpha1\",\"kind\":\"PodGroup\","
             "\"metadata\":{\"namespace\":\"%.*s\",\"name\":\"%.*s\",\"resourceVersion\":"
             "\"%.*s\",\"annotations\":{\"probe/put\":\"yes\"}},\"spec\":{\"minMember\":%lld}}",
             (int)pod->namespace_.len, pod->namespace_.ptr, (int)group.len, group.ptr,
             (int)g->resource_version.len, g->resource_version.ptr,
             (long long)op_min_member(p, g));
    op_write(p, cycle, r, "put", SH_VERB_UPDATE, kPodGroups, SH_PATCH_NONE, pod->namespace_,
             group, body);
  }
  snprintf(body, sizeof body, "{\"metadata\":{\"annotations\":{\"probe/report\":\"%s\"}}}",
           r->text);
  op_write(p, cycle, NULL, "report", SH_VERB_PATCH, kPodGroups, SH_PATCH_MERGE, pod->namespace_,
           group, body);
  return SH_SUCCESS;
}

static size_t op_events(void* self, sh_event_registration* out, size_t capacity) {
  (void)self;
  if (capacity >= 1) {
    out[0].resource = SH_RESOURCE_DECLARED_KIND + kPodGroups;
    out[0].actions = SH_ACTION_ADD | SH_ACTION_UPDATE;
    out[0].has_hint = 1;
    out[0].reserved_ = 0;
  }
  return 1;
}

static int op_ready(const op_plugin* p, const sh_object* o) {
  const sh_json* ready = p->api->json_path(o->root, "spec.ready", 10);
  return p->api->json_type(ready) == SH_ARGS_BOOL && p->api->json_bool(ready);
}

static sh_queueing_hint op_hint(void* self, size_t index, const sh_pod* pod,
                                const sh_event_objects* event) {
  const op_plugin* p = (const op_plugin*)self;
  sh_str group;
  (void)index;
  if (event->struct_size < sizeof(sh_event_objects) || event->kind != kPodGroups ||
      event->new_object == NULL || !op_group_of(pod, &group) ||
      event->new_object->name.len != group.len ||
      memcmp(event->new_object->name.ptr, group.ptr, group.len) != 0 ||
      !op_ready(p, event->new_object)) {
    return SH_QUEUE_SKIP;
  }
  if ((event->actions & SH_ACTION_ADD) != 0) {
    return event->old_object == NULL ? SH_QUEUE : SH_QUEUE_SKIP;
  }
  return event->old_object != NULL && !op_ready(p, event->old_object) ? SH_QUEUE : SH_QUEUE_SKIP;
}

static const sh_plugin_vtable kVtable = {
    sizeof(sh_plugin_vtable),
    0u,
    NULL,          /* pre_enqueue */
    NULL,          /* queue_sort_less */
    op_pre_filter, /* pre_filter */
    NULL,          /* pre_filter_add_pod */
    NULL,          /* pre_filter_remove_pod */
    NULL,          /* filter */
    NULL,          /* post_filter */
    NULL,          /* pre_score */
    NULL,          /* score */
    NULL,          /* normalize_score */
    op_reserve,    /* reserve */
    NULL,          /* unreserve */
    op_permit,     /* permit */
    op_pre_bind,   /* pre_bind */
    NULL,          /* bind */
    NULL,          /* post_bind */
    op_events,     /* events_to_register */
    op_hint        /* queueing_hint */
};

static const sh_object_kind kKinds[] = {
    {sizeof(sh_object_kind), SH_VERB_ALL, "scheduling.x-k8s.io", "v1alpha1", "podgroups",
     "PodGroup", 1, 0, NULL, NULL},
    {sizeof(sh_object_kind), 0u, "example.com", "v1", "clusterwidgets", "ClusterWidget", 0, 0,
     "tier=gold", NULL},
};

static const sh_plugin_descriptor kDescriptor = {sizeof(sh_plugin_descriptor),
                                                 SH_ABI_MAJOR,
                                                 SH_ABI_MINOR,
                                                 OP_NAME,
                                                 OP_VERSION,
                                                 "{}",
                                                 0u,
                                                 0u,
                                                 op_create,
                                                 op_destroy,
                                                 &kVtable,
                                                 kKinds,
                                                 2u,
                                                 0u};

SH_PLUGIN_METADATA(op_metadata, OP_NAME, OP_VERSION,
                   SH_POINT_PRE_FILTER | SH_POINT_RESERVE | SH_POINT_PERMIT | SH_POINT_PRE_BIND,
                   0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
