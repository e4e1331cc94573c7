/* libwrong_major.so: entry returns a descriptor of ABI major 2. */
#include "hostile_common.h"

static const sh_plugin_descriptor kDescriptor = {sizeof(sh_plugin_descriptor),
                                                 2,
                                                 SH_ABI_MINOR,
                                                 "WrongMajor",
                                                 "1.0.0",
                                                 NULL,
                                                 0u,
                                                 0u,
                                                 hostile_create,
                                                 hostile_destroy,
                                                 &hostile_vtable};

SH_PLUGIN_METADATA(wrong_major_metadata, "WrongMajor", "1.0.0", SH_POINT_FILTER, 0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
