/*
 * Filters that pass every node and declare kinds (ABI 1.2), for the tests of `schedhost rbac`
 * (rbac_command_test.cc). Built once per variant; RBAC_KINDS_VARIANT picks it:
 *
 *   1 RbacKindsA  scheduling.x-k8s.io/v1alpha1 podgroups (PodGroup): status updates;
 *                 core/v1 persistentvolumeclaims (PersistentVolumeClaim): patches.
 *   2 RbacKindsB  scheduling.x-k8s.io/v1alpha1 podgroups narrowed by a label selector: creates
 *                 and deletes; storage.k8s.io/v1 storageclasses (StorageClass): read only.
 *   3 RbacKindsBad  a group that is not a DNS subdomain, which the host refuses.
 */
#include <schedhost/plugin.h>

#include <stddef.h>

#if RBAC_KINDS_VARIANT == 1
#define RK_NAME "RbacKindsA"
static const sh_object_kind kKinds[] = {
    {sizeof(sh_object_kind), SH_VERB_UPDATE_STATUS, "scheduling.x-k8s.io", "v1alpha1", "podgroups",
     "PodGroup", 1, 0, NULL, NULL},
    {sizeof(sh_object_kind), SH_VERB_PATCH, "", "v1", "persistentvolumeclaims",
     "PersistentVolumeClaim", 1, 0, NULL, NULL},
};
#elif RBAC_KINDS_VARIANT == 2
#define RK_NAME "RbacKindsB"
static const sh_object_kind kKinds[] = {
    {sizeof(sh_object_kind), SH_VERB_CREATE | SH_VERB_DELETE, "scheduling.x-k8s.io", "v1alpha1",
     "podgroups", "PodGroup", 1, 0, "tier=gold", NULL},
    {sizeof(sh_object_kind), 0u, "storage.k8s.io", "v1", "storageclasses", "StorageClass", 0, 0,
     NULL, NULL},
};
#elif RBAC_KINDS_VARIANT == 3
#define RK_NAME "RbacKindsBad"
static const sh_object_kind kKinds[] = {
    {sizeof(sh_object_kind), 0u, "Bad_Group", "v1", "widgets", "Widget", 1, 0, NULL, NULL},
};
#else
#error "RBAC_KINDS_VARIANT must be 1, 2 or 3"
#endif

static int rk_instance;

static void* rk_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  (void)api;
  (void)host;
  (void)args;
  return &rk_instance;
}

static void rk_destroy(void* self) { (void)self; }

static sh_code rk_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                         const sh_node_info* node_info, sh_status* status) {
  (void)self;
  (void)cycle;
  (void)pod;
  (void)node_info;
  (void)status;
  return SH_SUCCESS;
}

static const sh_plugin_vtable kVtable = {
    .struct_size = sizeof(sh_plugin_vtable),
    .filter = rk_filter,
};

static const sh_plugin_descriptor kDescriptor = {
    .struct_size = sizeof(sh_plugin_descriptor),
    .abi_major = SH_ABI_MAJOR,
    .abi_minor = SH_ABI_MINOR,
    .name = RK_NAME,
    .version = "0.0.1",
    .default_args_json = "{}",
    .create = rk_create,
    .destroy = rk_destroy,
    .vtable = &kVtable,
    .kinds = kKinds,
    .kind_count = sizeof(kKinds) / sizeof(kKinds[0]),
};

SH_PLUGIN_METADATA(rk_metadata, RK_NAME, "0.0.1", SH_POINT_FILTER, 0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
