// A synthetic host for benchmarks: N copies of the mlx5 fixture port (read once by the real
// collectors), its counters growing every second by a fixed per-counter amount: every counter
// (the worst case: errors, pauses and CNPs grow too, so most rules fire), or only the traffic
// counters (a healthy host, the common case of a fleet).
#pragma once

#include <cstdint>
#include <utility>

#include "collector/model/snapshot.h"

namespace rdmatop::bench {

struct FixturePort {
  DeviceSample device;  ///< one ACTIVE port
  NetdevSample netdev;
};

/// The mlx5 fixture host's first port and its netdev (exits the process if the fixture is bad).
FixturePort load_fixture_port();

enum class Growth { every_counter, traffic_only };

/// The host at simulated second `t`: `ports` devices mlx5_0..N-1 on netdevs eth0..N-1.
Snapshot synthetic_host(const FixturePort& port, int ports, std::int64_t t,
                        Growth growth = Growth::every_counter);

/// CPU time of the calling thread in ms: stays meaningful on a loaded machine.
double thread_cpu_ms();

}  // namespace rdmatop::bench
