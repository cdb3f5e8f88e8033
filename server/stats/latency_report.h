// The text replies of LATENCY GRAPH and LATENCY DOCTOR, as Redis 7.0 writes them (latency.c,
// sparkline.c), for the events warden measures.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "server/stats/slowlog.h"

namespace warden::server {

class ServerState;

// A sparkline of the event's samples, 80 columns by 4 rows, labelled with their age.
std::string LatencyGraph(std::string_view event, const LatencyMonitor::Series& series,
                         std::int64_t now_s);
// Every event's statistics, then Redis's advice for them.
std::string LatencyDoctorReport(const ServerState& server);

}  // namespace warden::server
