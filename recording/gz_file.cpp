#include "recording/gz_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <utility>

#include "util/bounded_file.h"

namespace rdmatop {

Result<GzFile> GzFile::open_write(const std::string& path, bool compress) {
  errno = 0;
  gzFile f = gzopen(path.c_str(), compress ? "wb" : "wbT");
  if (f == nullptr) return errno_error(errno != 0 ? errno : ENOMEM, path);
  return GzFile(f, path);
}

Result<GzFile> GzFile::open_read(const std::string& path) {
  // Recordings are shared between hosts: a FIFO or device under a recording's name must be
  // refused, not read for ever (gzopen would block in open(2) on a FIFO without a writer).
  auto fd = open_regular_file(path);
  if (!fd) return fd.error();
  errno = 0;
  gzFile f = gzdopen(*fd, "rb");
  if (f == nullptr) {
    const int err = errno != 0 ? errno : ENOMEM;
    ::close(*fd);
    return errno_error(err, path);
  }
  return GzFile(f, path, *fd);
}

GzFile::GzFile(GzFile&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      bytes_read_(other.bytes_read_) {}

GzFile& GzFile::operator=(GzFile&& other) noexcept {
  if (this != &other) {
    close();
    file_ = std::exchange(other.file_, nullptr);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    bytes_read_ = other.bytes_read_;
  }
  return *this;
}

std::uint64_t GzFile::inflation_cap() const {
  struct stat st {};
  const std::uint64_t on_disk =
      fd_ >= 0 && ::fstat(fd_, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  return std::max(kMinInflationAllowance, on_disk * kMaxInflationRatio);
}

GzFile::~GzFile() {
  close();
}

Error GzFile::last_error(const std::string& what) const {
  int code = Z_OK;
  const char* message = gzerror(file_, &code);
  if (code == Z_ERRNO) return errno_error(errno, path_ + ": " + what);
  // zlib prefixes its messages with the path it was opened with; keep one copy of it.
  std::string_view detail = message != nullptr ? message : "zlib error";
  if (detail.substr(0, path_.size() + 2) == path_ + ": ") detail.remove_prefix(path_.size() + 2);
  return Error{0, path_ + ": " + what + ": " + std::string(detail)};
}

std::optional<Error> GzFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const auto chunk = static_cast<unsigned>(std::min<std::size_t>(bytes.size(), INT_MAX / 2));
    const int n = gzwrite(file_, bytes.data(), chunk);
    if (n <= 0) return last_error("write");
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return std::nullopt;
}

std::optional<Error> GzFile::flush() {
  if (gzflush(file_, Z_SYNC_FLUSH) != Z_OK) return last_error("flush");
  return std::nullopt;
}

Result<std::size_t> GzFile::read(char* buffer, std::size_t size) {
  const auto chunk = static_cast<unsigned>(std::min<std::size_t>(size, INT_MAX / 2));
  const int n = gzread(file_, buffer, chunk);
  if (n < 0) return last_error("read");
  bytes_read_ += static_cast<std::uint64_t>(n);
  if (bytes_read_ > kMinInflationAllowance && bytes_read_ > inflation_cap()) {
    return Error{EFBIG, path_ + ": inflates to more than " + std::to_string(kMaxInflationRatio) +
                            " times its size on disk: not a recording rdmatop wrote"};
  }
  // A truncated gzip stream reads as a plain end of file (gzread hides Z_BUF_ERROR, see zlib's
  // gzread.c), so the end is only clean when gzerror says so.
  if (n == 0) {
    int code = Z_OK;
    gzerror(file_, &code);
    if (code != Z_OK) return last_error("read");
  }
  return static_cast<std::size_t>(n);
}

std::optional<Error> GzFile::close() {
  if (file_ == nullptr) return std::nullopt;
  fd_ = -1;  // gzclose closes it
  const int rc = gzclose(std::exchange(file_, nullptr));
  if (rc != Z_OK) return Error{0, path_ + ": close failed (zlib code " + std::to_string(rc) + ")"};
  return std::nullopt;
}

}  // namespace rdmatop
