/* libnewer_minor.so: entry returns a descriptor of ABI minor 99, newer than any host. */
#include "hostile_common.h"

static const sh_plugin_descriptor kDescriptor = {sizeof(sh_plugin_descriptor),
                                                 SH_ABI_MAJOR,
                                                 99,
                                                 "NewerMinor",
                                                 "1.0.0",
                                                 NULL,
                                                 0u,
                                                 0u,
                                                 hostile_create,
                                                 hostile_destroy,
                                                 &hostile_vtable};

SH_PLUGIN_METADATA(newer_minor_metadata, "NewerMinor", "1.0.0", SH_POINT_FILTER, 0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
