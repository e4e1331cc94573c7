/* A plugin whose constructor aborts the process: any command that dlopens it dies. `plugin
 * list`, `plugin inspect` and a `run` whose profiles do not enable it must never load it. */
#include <stdlib.h>

#include "../../framework/hostile/hostile.h"

static const sh_plugin_vtable abort_vtable = {
    .struct_size = sizeof(sh_plugin_vtable),
    .filter = hostile_pass_filter,
};

HOSTILE_PLUGIN("AbortOnLoad", SH_POINT_FILTER, &abort_vtable, hostile_create)

__attribute__((constructor)) static void abort_on_load(void) { abort(); }
