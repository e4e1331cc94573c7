/* events_to_register claims args.count registrations (default 2^40), writing only as many as
 * fit in the room the host gives. */
#include <stdint.h>

#include "hostile.h"

static size_t many_count;

static void* many_create(const sh_host_api* api, sh_host* host, const sh_args* args) {
  const sh_args* count = api->args_get(args, "count");
  many_count = api->args_type(count) == SH_ARGS_INT ? (size_t)api->args_int(count)
                                                    : (size_t)1 << 40;
  return hostile_create(api, host, args);
}

static size_t many_events(void* self, sh_event_registration* out, size_t capacity) {
  (void)self;
  for (size_t i = 0; i < capacity && i < many_count; ++i) {
    out[i].resource = SH_RESOURCE_NODE;
    out[i].actions = SH_ACTION_ADD;
    out[i].has_hint = 0;
    out[i].reserved_ = 0;
  }
  return many_count;
}

static const sh_plugin_vtable many_vtable = {
    .struct_size = sizeof(sh_plugin_vtable),
    .filter = hostile_pass_filter,
    .events_to_register = many_events,
};

HOSTILE_PLUGIN("ManyEvents", SH_POINT_FILTER, &many_vtable, many_create)
