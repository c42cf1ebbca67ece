// One port's hardware counters read by RDMA netlink (one STAT_GET message) against sysfs (list
// hw_counters/, then one read per file), as the collector does each tick.
//
//   rdmatop_bench_netlink [--device rxe0] [--port 1] [--iterations 2000] [--sysfs-root /sys]
//
// Prints the CPU time per read of each way and the ratio. Netlink reads the live kernel, so it
// is measured only with --sysfs-root /sys; on a fixture tree only the sysfs cost is printed.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/synthetic_host.h"
#include "collector/parse/sysfs_parse.h"
#include "collector/source/file_source.h"
#include "collector/source/rdma_netlink_source.h"

using namespace rdmatop;

namespace {

struct Options {
  std::string device = "rxe0";
  std::uint32_t port = 1;
  int iterations = 2000;
  std::string sysfs_root = "/sys";
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--device") {
      o.device = value;
    } else if (flag == "--port") {
      o.port = static_cast<std::uint32_t>(std::stoul(value));
    } else if (flag == "--iterations") {
      o.iterations = std::stoi(value);
    } else if (flag == "--sysfs-root") {
      o.sysfs_root = value;
    } else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return o;
}

/// CPU time of this thread (user + system: both ways spend most of it in the kernel), in ns.
double thread_ns() {
  return rdmatop::bench::thread_cpu_ms() * 1e6;
}

/// ns per call of `read`, which returns the number of counters it got (0 = failure).
template <class Read>
double measure(int iterations, std::size_t& counters, Read read) {
  counters = read();  // warm-up, and the count to print
  const double start = thread_ns();
  for (int i = 0; i < iterations; ++i) {
    if (read() != counters) {
      std::fprintf(stderr, "read %d gave a different counter set\n", i);
      std::exit(1);
    }
  }
  return (thread_ns() - start) / iterations;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const auto fs = make_directory_file_source(o.sysfs_root);
  const std::string dir =
      "class/infiniband/" + o.device + "/ports/" + std::to_string(o.port) + "/hw_counters";

  std::size_t sysfs_count = 0;
  const double sysfs_ns = measure(o.iterations, sysfs_count, [&]() -> std::size_t {
    const auto names = fs->list(dir);
    if (!names) return 0;
    std::size_t n = 0;
    for (const auto& name : *names) {
      const auto text = fs->read(dir + "/" + name);
      if (text && parse_counter_value(*text)) ++n;
    }
    return n;
  });
  if (sysfs_count == 0) {
    std::fprintf(stderr, "no hw counters under %s/%s\n", o.sysfs_root.c_str(), dir.c_str());
    return 1;
  }
  std::printf("sysfs:   %8.1f us per port read (%zu files incl. lifespan, %s)\n", sysfs_ns / 1e3,
              sysfs_count, o.sysfs_root.c_str());

  if (o.sysfs_root != "/sys") {
    std::printf("netlink: not measured (reads the live kernel only; --sysfs-root is not /sys)\n");
    return 0;
  }
  const auto netlink = make_live_rdma_netlink_source();
  const auto devices = netlink->devices();
  if (!devices) {
    std::fprintf(stderr, "netlink: %s\n", devices.error().message.c_str());
    return 1;
  }
  std::uint32_t index = 0;
  bool found = false;
  for (const auto& d : *devices) {
    if (d.name == o.device) {
      index = d.index;
      found = true;
    }
  }
  if (!found) {
    std::fprintf(stderr, "netlink: no device %s\n", o.device.c_str());
    return 1;
  }
  std::size_t netlink_count = 0;
  const double netlink_ns = measure(o.iterations, netlink_count, [&]() -> std::size_t {
    const auto counters = netlink->port_counters(index, o.port);
    return counters ? counters->size() : 0;
  });
  std::printf("netlink: %8.1f us per port read (%zu counters, one STAT_GET)\n", netlink_ns / 1e3,
              netlink_count);
  std::printf("ratio:   sysfs / netlink = %.1f\n", sysfs_ns / netlink_ns);
  return 0;
}
