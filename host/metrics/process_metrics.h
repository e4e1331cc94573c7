// The process collector's families, as Prometheus' Go client exports them for every Go
// program (client_golang prometheus/process_collector_procfs.go), read from /proc at scrape
// time: process_cpu_seconds_total, process_open_fds, process_max_fds,
// process_virtual_memory_bytes, process_resident_memory_bytes, process_start_time_seconds.
// A file that cannot be read leaves its families out rather than report a wrong value.
#pragma once

#include <vector>

#include "host/metrics/metric.h"

namespace sh::metrics {

std::vector<FamilySnapshot> processFamilies();

}  // namespace sh::metrics
