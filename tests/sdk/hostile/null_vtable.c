/* libnull_vtable.so: entry returns a descriptor whose vtable is NULL. */
#include "hostile_common.h"

static const sh_plugin_descriptor kDescriptor = {sizeof(sh_plugin_descriptor),
                                                 SH_ABI_MAJOR,
                                                 SH_ABI_MINOR,
                                                 "NullVtable",
                                                 "1.0.0",
                                                 NULL,
                                                 0u,
                                                 0u,
                                                 hostile_create,
                                                 hostile_destroy,
                                                 NULL};

SH_PLUGIN_METADATA(null_vtable_metadata, "NullVtable", "1.0.0", SH_POINT_FILTER, 0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
