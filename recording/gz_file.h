// One recording file on disk through zlib's gz* API: compressed ("w") or plain ("wT",
// transparent) when writing; gzread reads either kind, so the reader needs no flag.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "collector/model/result.h"

namespace rdmatop {

/// How much larger than the file on disk a recording may inflate. rdmatop's JSON lines
/// compress about 13 times (a demo recording: 3.4 MB in 271 KB; the mlx5 fixture host's:
/// 81 KB in 5.7 KB), so 200 leaves a wide margin for more repetitive hosts; deflate cannot
/// exceed about 1032:1 (zlib's FAQ), which only a file of near-constant bytes reaches: a
/// "gzip bomb", refused instead of being inflated for minutes.
inline constexpr std::uint64_t kMaxInflationRatio = 200;
/// Small files may inflate to this much whatever their ratio (a short recording of an idle
/// host compresses better than a long one).
inline constexpr std::uint64_t kMinInflationAllowance = 64 * 1024 * 1024;

class GzFile {
 public:
  static Result<GzFile> open_write(const std::string& path, bool compress);
  static Result<GzFile> open_read(const std::string& path);

  GzFile(GzFile&& other) noexcept;
  GzFile& operator=(GzFile&& other) noexcept;
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;
  ~GzFile();

  std::optional<Error> write(std::string_view bytes);
  /// Pushes everything written so far to the kernel, as a complete gzip block, so a reader (or
  /// a crash) sees every finished line.
  std::optional<Error> flush();
  /// Up to `size` bytes; 0 at the end; an Error for damaged compressed data, and EFBIG once
  /// more than max(kMinInflationAllowance, kMaxInflationRatio x the file's size) was read.
  Result<std::size_t> read(char* buffer, std::size_t size);
  std::optional<Error> close();

 private:
  GzFile(gzFile file, std::string path, int fd = -1)
      : file_(file), path_(std::move(path)), fd_(fd) {}
  Error last_error(const std::string& what) const;
  /// The inflation cap for the file as it is on disk now (it may still be growing).
  std::uint64_t inflation_cap() const;

  gzFile file_ = nullptr;
  std::string path_;
  int fd_ = -1;  ///< the descriptor gzdopen took, for fstat; -1 when writing
  std::uint64_t bytes_read_ = 0;
};

}  // namespace rdmatop
