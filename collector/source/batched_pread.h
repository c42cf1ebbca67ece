// Many small reads at offset 0 in one system call, through io_uring(7): a tick of a 16-port host
// reads ~1,900 counter files, and one pread(2) each was most of the exporter's kernel time
// (bench/README.md, "Session 20: the counter reads batched"). The reads still run in the
// kernel, one attribute show() each (sysfs has no batch read), but the ring takes them all in
// one io_uring_enter(2) instead of one system call entry and exit per value. Regular files and
// sysfs (kernfs) attributes are read inline by the submitting task: no worker threads.
//
// Where io_uring cannot be set up (Linux < 5.1, the kernel.io_uring_disabled sysctl, a seccomp
// filter such as Docker's default profile returning EPERM) available() is false and
// unavailable_reason() says why; the caller reads with pread as before and says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace rdmatop {

class BatchedPread {
 public:
  /// `depth`: the most reads handed to the kernel at once; longer batches go in several calls.
  explicit BatchedPread(unsigned depth = 256);
  ~BatchedPread();
  BatchedPread(const BatchedPread&) = delete;
  BatchedPread& operator=(const BatchedPread&) = delete;

  bool available() const { return ring_ != nullptr; }
  /// Why available() is false ("io_uring_setup: Operation not permitted"); "" when it is true.
  const std::string& unavailable_reason() const { return unavailable_reason_; }

  /// One read at offset 0: up to `length` bytes of `fd` into `buffer`.
  struct Read {
    int fd = -1;
    char* buffer = nullptr;
    std::uint32_t length = 0;
  };
  /// Makes each of `reads`; sets `results[i]` to the bytes `reads[i]` read or to -errno, as
  /// pread(2) would have returned (EINTR is retried). Only when available(). Should the ring
  /// itself fail, the reads not done get its error and available() turns false, with the
  /// reason.
  void read(std::span<const Read> reads, std::span<long> results);

  /// io_uring_enter calls made so far.
  std::uint64_t submissions() const { return submissions_; }

 private:
  struct Ring;
  std::unique_ptr<Ring> ring_;
  unsigned depth_ = 0;
  std::string unavailable_reason_;
  std::uint64_t submissions_ = 0;
};

}  // namespace rdmatop
