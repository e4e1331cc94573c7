/* Filter does not return until a byte arrives on the descriptor args.fd: a call as long as the
 * test wants, with no clock involved. */
#include <unistd.h>

#include "hostile.h"

static int slow_fd = -1;

static void* slow_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  slow_fd = (int)api->args_int(api->args_get(args, "fd"));
  return hostile_create(api, host, args);
}

static sh_code slow_filter(void* self, sh_cycle* cycle, const sh_pod* pod,
                           const sh_node_info* node_info, sh_status* status) {
  (void)self;
  (void)cycle;
  (void)pod;
  (void)node_info;
  (void)status;
  char byte = 0;
  return read(slow_fd, &byte, 1) == 1 ? SH_SUCCESS : SH_ERROR;
}

static const sh_plugin_vtable slow_vtable = {
    .struct_size = sizeof(sh_plugin_vtable),
    .filter = slow_filter,
};

HOSTILE_PLUGIN("SlowFilter", SH_POINT_FILTER, &slow_vtable, slow_create)
