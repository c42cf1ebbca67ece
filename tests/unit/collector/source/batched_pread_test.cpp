// The batched reads under the file cache: each file's bytes at offset 0 land in its own slot,
// a bad descriptor fails alone, and a batch longer than the ring goes in several calls.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "collector/source/batched_pread.h"

namespace rdmatop {
namespace batched_pread_test {

namespace fs = std::filesystem;

TEST_CASE("batched reads give each file's bytes, and a bad descriptor's error alone",
          "[batched_pread]") {
  std::string dir_template = (fs::temp_directory_path() / "rdmatop-batch-XXXXXX").string();
  REQUIRE(::mkdtemp(dir_template.data()) != nullptr);
  const fs::path dir = dir_template;
  std::vector<int> fds;
  for (int i = 0; i < 10; ++i) {
    std::ofstream(dir / std::to_string(i)) << i * 1000 << "\n";
    fds.push_back(::open((dir / std::to_string(i)).c_str(), O_RDONLY | O_CLOEXEC));
    REQUIRE(fds.back() >= 0);
  }
  fds[7] = -1;  // not a descriptor: EBADF for this read only

  BatchedPread batch(4);  // ten reads through a ring of four: three calls at least
  if (!batch.available()) {
    WARN("SKIPPED: io_uring is not available here (" << batch.unavailable_reason() << ")");
    CHECK_FALSE(batch.unavailable_reason().empty());
  } else {
    constexpr std::size_t kSlot = 16;
    std::vector<char> buffers(fds.size() * kSlot);
    std::vector<long> results(fds.size(), 12345);
    std::vector<BatchedPread::Read> reads;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      reads.push_back({fds[i], buffers.data() + i * kSlot, static_cast<std::uint32_t>(kSlot)});
    }
    batch.read(reads, results);
    CHECK(batch.submissions() >= 3);
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (i == 7) {
        CHECK(results[i] == -EBADF);
        continue;
      }
      const std::string expected = std::to_string(i * 1000) + "\n";
      REQUIRE(results[i] == static_cast<long>(expected.size()));
      CHECK(std::string(buffers.data() + i * kSlot, expected.size()) == expected);
    }
    CHECK(batch.available());  // one failed read is not a failed ring
  }
  for (const int fd : fds) {
    if (fd >= 0) ::close(fd);
  }
  fs::remove_all(dir);
}

}  // namespace batched_pread_test
}  // namespace rdmatop
