// Recordings as `report --from` and `exporter --from` read them (recording): the
// bytes go into an in-memory file (memfd_create(2)), so the same path as a real file is taken:
// the regular-file check, zlib (plain or gzip), the line reader, the header and each
// snapshot's JSON.
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "fuzz/fuzz_input.h"
#include "recording/recording_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = ::memfd_create("recording", MFD_CLOEXEC);
  if (fd < 0) return 0;
  std::size_t written = 0;
  while (written < size) {
    const ssize_t n = ::write(fd, data + written, size - written);
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  auto reader = rdmatop::RecordingReader::open("/proc/self/fd/" + std::to_string(fd));
  if (reader) {
    while ((*reader)->next()) {
    }
  }
  ::close(fd);
  return 0;
}
