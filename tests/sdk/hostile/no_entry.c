/* libno_entry.so: a valid .shmeta record, but no schedhost_plugin_v1 symbol at all. */
#include <schedhost/plugin.h>

SH_PLUGIN_METADATA(no_entry_metadata, "NoEntry", "1.0.0", SH_POINT_FILTER, 0u);

SH_EXPORT int not_the_entry_point(void);
SH_EXPORT int not_the_entry_point(void) { return 42; }
