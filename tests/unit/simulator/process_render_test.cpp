// The simulated host's procfs and NUMA files: what render_processes writes is what the
// collector's own parsers read back (memlock limit, pinned memory, CAP_IPC_LOCK, allowed CPUs,
// node CPU lists), in the kernel's formats.
#include <catch2/catch.hpp>

#include "collector/parse/procfs_process_parse.h"
#include "simulator/process_render.h"

using namespace rdmatop;
using namespace rdmatop::sim;

namespace {

SimProcess process(std::uint32_t pid, std::optional<std::uint64_t> memlock, bool cap,
                   std::uint64_t pinned, std::string cpus) {
  SimProcess p;
  p.pid = pid;
  p.comm = "proc-" + std::to_string(pid);
  p.devices = {"mlx5_0"};
  p.memlock_bytes = memlock;
  p.cap_ipc_lock = cap;
  p.pinned_bytes = pinned;
  p.cpus = std::move(cpus);
  return p;
}

}  // namespace

TEST_CASE("Rendered /proc/<pid> files parse back to the process model", "[simulator][procfs]") {
  struct Row {
    SimProcess p;
    std::vector<std::uint32_t> cpus;
    const char* mask;
  };
  std::vector<std::uint32_t> all(32);
  for (std::uint32_t i = 0; i < 32; ++i) all[i] = i;
  const Row rows[] = {
      {process(3120, 65536, false, 61440, "0-15"),
       {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
       "0000ffff"},
      {process(4402, 65536, true, 536870912, "16-17,31"), {16, 17, 31}, "80030000"},
      {process(2810, std::nullopt, false, 0, ""), all, "ffffffff"},
  };
  for (const Row& row : rows) {
    INFO("pid " << row.p.pid);
    HostModel host = make_host_model(default_host());
    host.processes = {row.p};
    TreeImage image;
    render_processes(host, image);
    const std::string dir = "proc/" + std::to_string(row.p.pid) + "/";
    CHECK(image.files.at(dir + "comm") == row.p.comm + "\n");
    const auto limit = parse_proc_limits_memlock(image.files.at(dir + "limits"));
    REQUIRE(limit.ok());
    CHECK(limit->soft == row.p.memlock_bytes);
    CHECK(limit->hard == row.p.memlock_bytes);
    const std::string& status_text = image.files.at(dir + "status");
    const auto status = parse_proc_status(status_text);
    REQUIRE(status.ok());
    CHECK(status->pinned_bytes == row.p.pinned_bytes);
    REQUIRE(status->cap_effective);
    CHECK((((*status->cap_effective >> kCapIpcLock) & 1U) != 0) == row.p.cap_ipc_lock);
    CHECK(status->cpus == row.cpus);
    CHECK(status_text.find(std::string("Cpus_allowed:\t") + row.mask + "\n") != std::string::npos);
  }
}

TEST_CASE("The host's NUMA nodes list their CPUs; processes appear only when declared",
          "[simulator][procfs]") {
  TreeImage image;
  render_processes(make_host_model(default_host()), image);
  for (std::uint32_t n = 0; n < kNumaNodes; ++n) {
    const auto cpus = parse_cpu_list(
        image.files.at("sys/devices/system/node/node" + std::to_string(n) + "/cpulist"));
    REQUIRE(cpus.ok());
    REQUIRE(cpus->size() == kCpusPerNode);
    CHECK(cpus->front() == n * kCpusPerNode);
  }
  for (const auto& [path, text] : image.files) CHECK(path.rfind("proc/", 0) != 0);
}
