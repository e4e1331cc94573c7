/* A plugin whose constructor aborts the process: any command that dlopens it dies. `plugin
 * list`, `plugin inspect` and a `run` whose profiles do not enable it must never load it. */
#include <stdlib.h>

#include <schedhost/plugin.h>

SH_PLUGIN_METADATA(abort_metadata, "AbortOnLoad", "0.0.1", SH_POINT_FILTER, 0);

static sh_code abort_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                            const sh_node_info* node_info, sh_status* status) {
  (void)self;
  (void)cycle;
  (void)pod;
  (void)node_info;
  (void)status;
  return SH_SUCCESS;
}

static int abort_instance;

static void* abort_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  (void)api;
  (void)host;
  (void)args;
  return &abort_instance;
}

static void abort_destroy(void* self) { (void)self; }

static const sh_plugin_vtable abort_vtable = {
    .struct_size = sizeof(sh_plugin_vtable),
    .filter = abort_filter,
};

static const sh_plugin_descriptor abort_descriptor = {
    .struct_size = sizeof(sh_plugin_descriptor),
    .abi_major = SH_ABI_MAJOR,
    .abi_minor = SH_ABI_MINOR,
    .name = "AbortOnLoad",
    .version = "0.0.1",
    .default_args_json = "{}",
    .create = abort_create,
    .destroy = abort_destroy,
    .vtable = &abort_vtable,
};

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &abort_descriptor; }

__attribute__((constructor)) static void abort_on_load(void) { abort(); }
