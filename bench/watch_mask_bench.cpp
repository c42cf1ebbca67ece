// What an inotify watch on a counter directory costs every read of its files, and what O_NOATIME
// saves: two candidates for the caching file source (collector/source/cached_file_source.cpp
// watches every directory it holds files of with IN_MODIFY | IN_ATTRIB among its events, and
// opens without O_NOATIME), measured here and not kept (bench/README.md, "Session 29"). The
// same held files are read in one io_uring_enter(2) per round (batched_pread.h) with no watch
// on their directories, with a watch that asks for changes inside the files (the kernel then
// looks up the directory's marks on each read: fsnotify_parent), and with one that asks for
// entries only; each phase reads the files through descriptors opened without and with
// O_NOATIME, alternately. A 64 MiB walk before each read leaves the files' kernel structures
// as cold as a tick a second later finds them.
//
//   find /tmp/host16/sys -path '*counters/*' -type f | rdmatop_bench_watch_mask [--rounds 200]
//       [--order 021]
//
// --order: the phases in order (0 no watch, 1 files' changes, 2 entries only): the machine
// drifts, so run it in several orders. Prints the CPU time of this thread per file read.
#include <fcntl.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "bench/synthetic_host.h"
#include "collector/source/batched_pread.h"

namespace {

constexpr std::uint32_t kEntries =
    IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;
constexpr std::uint32_t kContents = IN_MODIFY | IN_ATTRIB;
constexpr const char* kPhaseNames[] = {"no watch", "files' changes", "entries only"};

}  // namespace

int main(int argc, char** argv) {
  int rounds = 200;
  std::string order = "021";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rounds") {
      rounds = std::atoi(argv[i + 1]);
    } else if (flag == "--order") {
      order = argv[i + 1];
    } else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  std::vector<std::string> paths;
  for (std::string path; std::getline(std::cin, path);) paths.push_back(path);
  std::set<std::string> dirs;
  std::vector<int> plain;
  std::vector<int> noatime;
  for (const auto& path : paths) {
    dirs.insert(std::filesystem::path(path).parent_path());
    plain.push_back(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    noatime.push_back(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOATIME));
    if (plain.back() < 0 || noatime.back() < 0) {
      std::fprintf(stderr, "cannot open %s (O_NOATIME needs the file's owner)\n", path.c_str());
      return 1;
    }
  }
  if (paths.empty() || rounds <= 0) {
    std::fprintf(stderr, "give the files to read on standard input, one path a line\n");
    return 2;
  }
  rdmatop::BatchedPread batch;
  if (!batch.available()) {
    std::fprintf(stderr, "io_uring unavailable: %s\n", batch.unavailable_reason().c_str());
    return 1;
  }
  constexpr std::uint32_t kSlot = 64;
  std::vector<char> buffers(paths.size() * kSlot);
  std::vector<long> results(paths.size());
  std::vector<char> other_work(64U << 20U);
  auto read_all = [&](const std::vector<int>& fds) {
    for (std::size_t i = 0; i < other_work.size(); i += 64) ++other_work[i];
    std::vector<rdmatop::BatchedPread::Read> reads;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      reads.push_back({fds[i], buffers.data() + i * kSlot, kSlot});
    }
    const double start = rdmatop::bench::thread_cpu_ms() * 1e6;
    batch.read(reads, results);
    const double spent = rdmatop::bench::thread_cpu_ms() * 1e6 - start;
    for (const long n : results) {
      if (n < 0) {
        std::fprintf(stderr, "a read failed: %ld\n", n);
        std::exit(1);
      }
    }
    return spent;
  };
  std::printf("%zu files in %zu directories, %d rounds per phase, CPU of this thread per read\n",
              paths.size(), dirs.size(), rounds);
  for (const char c : order) {
    const int phase = c - '0';
    if (phase < 0 || phase > 2) continue;
    // A fresh instance per phase: closing the last one removes its watches.
    const int in = ::inotify_init1(IN_CLOEXEC);
    if (phase > 0) {
      for (const auto& dir : dirs) {
        if (::inotify_add_watch(in, dir.c_str(), phase == 1 ? kEntries | kContents : kEntries) <
            0) {
          std::perror("inotify_add_watch");
          return 1;
        }
      }
    }
    double with_atime = 0;
    double without_atime = 0;
    for (int r = 0; r < rounds; ++r) {  // the two alternate which goes first
      if (r % 2 == 0) with_atime += read_all(plain);
      without_atime += read_all(noatime);
      if (r % 2 == 1) with_atime += read_all(plain);
    }
    const double reads = static_cast<double>(rounds) * static_cast<double>(paths.size());
    std::printf("%-15s %.3f us per read (O_NOATIME: %.3f us)\n", kPhaseNames[phase],
                with_atime / reads / 1e3, without_atime / reads / 1e3);
    ::close(in);
  }
  return 0;
}
