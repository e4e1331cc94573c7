/* libsmall_descriptor.so: entry returns a descriptor whose struct_size is 8. */
#include "hostile_common.h"

static const sh_plugin_descriptor kDescriptor = {
    8,  SH_ABI_MAJOR, SH_ABI_MINOR,   "SmallDescriptor", "1.0.0",        NULL,
    0u, 0u,           hostile_create, hostile_destroy,   &hostile_vtable};

SH_PLUGIN_METADATA(small_descriptor_metadata, "SmallDescriptor", "1.0.0", SH_POINT_FILTER, 0u);

SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void);
SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void) { return &kDescriptor; }
