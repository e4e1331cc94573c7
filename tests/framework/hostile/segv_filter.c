/* Writes through a NULL pointer in Filter: the process dies, and the host's fatal-signal
 * report names this plugin and Filter. */
#include "hostile.h"

/* A real fault, as a plugin's bug would make it: the sanitizer builds of the suite must not
 * catch the store first (UndefinedBehaviorSanitizer reports a store to NULL and stops). */
__attribute__((no_sanitize("undefined", "address")))
static sh_code segv_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                           const sh_node_info* node_info, sh_status* status) {
  (void)self;
  (void)cycle;
  (void)pod;
  (void)node_info;
  (void)status;
  volatile int* nowhere = NULL;
  *nowhere = 1;
  return SH_SUCCESS;
}

static const sh_plugin_vtable segv_vtable = {
    .struct_size = sizeof(sh_plugin_vtable),
    .filter = segv_filter,
};

HOSTILE_PLUGIN("SegvFilter", SH_POINT_FILTER, &segv_vtable, hostile_create)
