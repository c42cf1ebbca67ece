// The file cache's two ways of re-reading held counter files, side by side on the same files:
// one pread(2) per file, and one io_uring_enter(2) for all of them (collector/source/
// batched_pread.h). Prints the CPU time per value of each (user and system, getrusage: the
// kernel does the reads either way) and their ratio. Point it at fixture files and at real
// sysfs attributes: a regular file and a kernfs attribute cost the kernel differently.
//
//   find /sys/class/net/*/statistics -type f | rdmatop_bench_batched_reads [--rounds 50]
//   find /tmp/host16/sys -path '*counters/*' -type f | rdmatop_bench_batched_reads
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "collector/source/batched_pread.h"

namespace {

struct CpuUs {
  double user = 0;
  double system = 0;
};

CpuUs process_cpu_us() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);  // the whole process: io_uring workers, were there any, count too
  return {static_cast<double>(r.ru_utime.tv_sec) * 1e6 + static_cast<double>(r.ru_utime.tv_usec),
          static_cast<double>(r.ru_stime.tv_sec) * 1e6 + static_cast<double>(r.ru_stime.tv_usec)};
}

/// This process's threads: io_uring hands a read it cannot do inline to io-wq worker threads
/// of the process (iou-wrk-PID); the count says whether the batches needed any.
long thread_count() {
  long n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    ++n;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 50;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--rounds") rounds = std::atoi(argv[i + 1]);
  }
  std::vector<int> fds;
  for (std::string path; std::getline(std::cin, path);) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) fds.push_back(fd);
  }
  if (fds.empty() || rounds <= 0) {
    std::fprintf(stderr, "give the files to read on standard input, one path a line\n");
    return 2;
  }
  constexpr std::size_t kSlot = 64;
  std::vector<char> buffers(fds.size() * kSlot);
  std::vector<long> results(fds.size());
  const double values = static_cast<double>(fds.size()) * rounds;

  long errors = 0;
  const CpuUs p0 = process_cpu_us();
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (::pread(fds[i], buffers.data() + i * kSlot, kSlot, 0) < 0) ++errors;
    }
  }
  const CpuUs p1 = process_cpu_us();
  std::printf("%zu files x %d rounds\n", fds.size(), rounds);
  std::printf("pread each:        user %.2f us, system %.2f us per value (%ld errors)\n",
              (p1.user - p0.user) / values, (p1.system - p0.system) / values, errors);

  std::vector<rdmatop::BatchedPread::Read> reads;
  for (std::size_t i = 0; i < fds.size(); ++i) {
    reads.push_back({fds[i], buffers.data() + i * kSlot, static_cast<std::uint32_t>(kSlot)});
  }
  rdmatop::BatchedPread batch;
  if (!batch.available()) {
    std::printf("io_uring:          unavailable here (%s)\n", batch.unavailable_reason().c_str());
    return 0;
  }
  errors = 0;
  const CpuUs b0 = process_cpu_us();
  for (int r = 0; r < rounds; ++r) {
    batch.read(reads, results);
    for (const long n : results) errors += n < 0 ? 1 : 0;
  }
  const CpuUs b1 = process_cpu_us();
  const double each = (p1.user - p0.user) + (p1.system - p0.system);
  const double batched = (b1.user - b0.user) + (b1.system - b0.system);
  std::printf(
      "one io_uring_enter: user %.2f us, system %.2f us per value (%ld errors, %llu calls, "
      "%ld threads after: 1 means no io-wq workers)\n",
      (b1.user - b0.user) / values, (b1.system - b0.system) / values, errors,
      static_cast<unsigned long long>(batch.submissions()), thread_count());
  std::printf("CPU per value, batched / pread each: %.2f\n", batched / each);
  for (const int fd : fds) ::close(fd);
  return 0;
}
