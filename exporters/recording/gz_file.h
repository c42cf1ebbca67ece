// One recording file on disk through zlib's gz* API: compressed ("w") or plain ("wT",
// transparent) when writing; gzread reads either kind, so the reader needs no flag.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "collector/model/result.h"

namespace rdmatop {

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
  /// Up to `size` bytes; 0 at the end; an Error for damaged compressed data.
  Result<std::size_t> read(char* buffer, std::size_t size);
  std::optional<Error> close();

 private:
  GzFile(gzFile file, std::string path) : file_(file), path_(std::move(path)) {}
  Error last_error(const std::string& what) const;

  gzFile file_ = nullptr;
  std::string path_;
};

}  // namespace rdmatop
