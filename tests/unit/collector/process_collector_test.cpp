// The exporter's own process metrics: the open descriptors counted by one stat(2) of the procfs
// fd directory where the kernel reports them (Linux >= 6.2), and by listing it otherwise.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "collector/process_collector.h"
#include "collector/source/file_source.h"
#include "tests/support/fake_file_source.h"

namespace rdmatop {
namespace process_collector_test {

// A /proc with the three things read_process_metrics reads; self/fd lists three descriptors.
testing::FakeFileSource fake_proc() {
  testing::FakeFileSource proc;
  proc.file("self/stat",
            "4242 (rdmatop) S 1 4242 4242 0 -1 4194560 98 0 0 0 250 50 0 0 20 0 5 0 2325934 "
            "3133440 411 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n");
  proc.file("stat", "cpu  1 2 3 4\nbtime 1796410477\n");
  proc.file("self/fd/0", "").file("self/fd/1", "").file("self/fd/2", "");
  return proc;
}

TEST_CASE("process metrics: the open descriptors come from the counter where it answers",
          "[process]") {
  const testing::FakeFileSource proc = fake_proc();
  const std::uint64_t boot = read_boot_time(proc).value();
  const auto counted =
      read_process_metrics(proc, boot, [] { return std::optional<std::size_t>(1234); });
  REQUIRE(counted);
  CHECK(counted->open_fds == 1234);
  // A counter that cannot answer (an older kernel), or none: the directory is listed.
  const auto listed = read_process_metrics(proc, boot, [] { return std::optional<std::size_t>(); });
  REQUIRE(listed);
  CHECK(listed->open_fds == 3);
  const auto plain = read_process_metrics(proc, boot);
  REQUIRE(plain);
  CHECK(plain->open_fds == 3);
  CHECK(plain->cpu_seconds > 0);
}

TEST_CASE("process metrics: a known boot time is not read again", "[process]") {
  testing::FakeFileSource proc = fake_proc();
  const auto boot = read_boot_time(proc);
  REQUIRE(boot);
  CHECK(*boot == 1796410477);
  // The metrics read from a /proc whose stat cannot be read: given the boot time, the reader
  // does not touch it. Start ticks 2325934 at the kernel's 100 Hz are 23,259.34 s after boot.
  testing::FakeFileSource no_stat;
  no_stat.file("self/stat", *proc.read("self/stat"));
  const auto given = read_process_metrics(no_stat, *boot);
  REQUIRE(given);
  CHECK(given->start_time_seconds ==
        Approx(1796410477.0 + 2325934.0 / static_cast<double>(sysconf(_SC_CLK_TCK))));
  CHECK(given->cpu_seconds > 0);
  // Without it, that /proc has no boot time: an error naming the file, not a start time of 0.
  const auto unknown = read_boot_time(no_stat);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("stat") != std::string::npos);
  // The host's own reader: the boot time it read once stays, so the start time does not move.
  const ProcessReader host = host_process_reader();
  const auto first = host();
  const auto second = host();
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->start_time_seconds == second->start_time_seconds);
  CHECK(first->start_time_seconds >
        static_cast<double>(*read_boot_time(*make_directory_file_source("/proc"))));
}

TEST_CASE("process metrics: the host's reader re-reads the /proc/self/stat it holds open",
          "[process][procfs]") {
  const ProcessReader host = host_process_reader();
  const auto first = host();
  REQUIRE(first);
  // Spend a quarter of a second of this process's CPU: the held file must show it (procfs
  // counts in clock ticks, 10 ms at the usual 100 Hz), as a fresh open would.
  const auto cpu_now = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
  };
  const double start = cpu_now();
  volatile std::uint64_t spin = 0;
  while (cpu_now() - start < 0.25) spin = spin + 1;
  const auto later = host();
  REQUIRE(later);
  CHECK(later->cpu_seconds >= first->cpu_seconds + 0.2);
  // Held, not reopened: after many reads one descriptor of this process is that file.
  for (int i = 0; i < 50; ++i) REQUIRE(host());
  const auto proc = make_directory_file_source("/proc");
  const auto fds = proc->list("self/fd");
  REQUIRE(fds);
  const std::string stat_path = "/proc/" + std::to_string(::getpid()) + "/stat";
  int holding = 0;
  for (const std::string& fd : *fds) {
    const auto target = proc->read_link("self/fd/" + fd);
    if (target && *target == stat_path) ++holding;
  }
  CHECK(holding == 1);
}

TEST_CASE(
    "process metrics: procfs reports this process's open descriptors as the size of "
    "/proc/self/fd",
    "[process][procfs]") {
  CHECK_FALSE(open_fds_from_size("/proc/self/no-such-directory"));
  CHECK_FALSE(open_fds_from_size("/proc/self/stat"));  // a file, not the fd directory
  const std::optional<std::size_t> before = open_fds_from_size("/proc/self/fd");
  if (!before) {
    WARN(
        "SKIPPED: this kernel reports no size for /proc/self/fd (Linux < 6.2); the exporter "
        "lists the directory instead, which the case above checks");
    return;
  }
  std::vector<int> opened;
  for (int i = 0; i < 7; ++i) {
    const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    opened.push_back(fd);
  }
  CHECK(open_fds_from_size("/proc/self/fd") == *before + 7);
  for (const int fd : opened) ::close(fd);
  CHECK(open_fds_from_size("/proc/self/fd") == before);
  // The listing agrees, but for the descriptor the listing itself holds open while it reads.
  const auto listed = make_directory_file_source("/proc")->list("self/fd");
  REQUIRE(listed);
  CHECK((listed->size() == *before || listed->size() == *before + 1));
}

}  // namespace process_collector_test
}  // namespace rdmatop
