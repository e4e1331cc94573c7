/* Shared pieces of the hostile test libraries: a do-nothing instance and vtable, so each
 * library differs from a valid plugin in exactly the one way its name says. Each library
 * carries a valid .shmeta record (ABI 1.0), so a loader gets as far as the defect. */
#ifndef SCHEDHOST_TESTS_SDK_HOSTILE_COMMON_H
#define SCHEDHOST_TESTS_SDK_HOSTILE_COMMON_H

#include <schedhost/plugin.h>

#include <stddef.h>

/* Not every library uses every piece. */
#define HOSTILE_UNUSED __attribute__((unused))

static int hostile_instance;

HOSTILE_UNUSED static void* hostile_create(const sh_host_api* api, sh_host* host,
                                           const sh_args* args) {
  (void)api;
  (void)host;
  (void)args;
  return &hostile_instance;
}

HOSTILE_UNUSED static void hostile_destroy(void* self) { (void)self; }

HOSTILE_UNUSED static sh_code hostile_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                                             const sh_node_info* node_info, sh_status* status) {
  (void)self;
  (void)cycle;
  (void)pod;
  (void)node_info;
  (void)status;
  return SH_SUCCESS;
}

/* A vtable with only Filter set. */
HOSTILE_UNUSED static const sh_plugin_vtable hostile_vtable = {sizeof(sh_plugin_vtable),
                                                               0,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               hostile_filter,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               NULL,
                                                               NULL};

#endif /* SCHEDHOST_TESTS_SDK_HOSTILE_COMMON_H */
