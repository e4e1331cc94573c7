/* Shared parts of the hostile test plugins: each .c file is one plugin that misbehaves in one
 * way, to show what the host does about it (tests/framework/hostile_plugin_test.cc). */
#ifndef SCHEDHOST_HOSTILE_PLUGIN_H
#define SCHEDHOST_HOSTILE_PLUGIN_H

#include <schedhost/plugin.h>

/* The api and host of the last instance created (the tests create one at a time). */
#define HOSTILE_UNUSED __attribute__((unused))
HOSTILE_UNUSED static const sh_host_api* hostile_api;
HOSTILE_UNUSED static sh_host* hostile_host;
static int hostile_instance;

/* Declares the plugin `plugin_name`: its metadata, descriptor and entry point. */
#define HOSTILE_PLUGIN(plugin_name, points, vtable_ptr, create_fn)       \
  SH_PLUGIN_METADATA(hostile_metadata, plugin_name, "0.0.1", points, 0); \
  static void hostile_destroy(void* self) { (void)self; }                \
  static const sh_plugin_descriptor hostile_descriptor = {               \
      .struct_size = sizeof(sh_plugin_descriptor),                       \
      .abi_major = SH_ABI_MAJOR,                                         \
      .abi_minor = SH_ABI_MINOR,                                         \
      .name = plugin_name,                                               \
      .version = "0.0.1",                                                \
      .default_args_json = "{}",                                         \
      .create = create_fn,                                               \
      .destroy = hostile_destroy,                                        \
      .vtable = vtable_ptr};                                             \
  SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &hostile_descriptor; }

static void* hostile_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  (void)args;
  hostile_api = api;
  hostile_host = host;
  return &hostile_instance;
}

/* A Filter that passes every node, for plugins whose misbehaviour lies elsewhere. */
HOSTILE_UNUSED static sh_code hostile_pass_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                                                  const sh_node_info* node_info,
                                                  sh_status* status) {
  (void)self;
  (void)cycle;
  (void)pod;
  (void)node_info;
  (void)status;
  return SH_SUCCESS;
}

#endif /* SCHEDHOST_HOSTILE_PLUGIN_H */
