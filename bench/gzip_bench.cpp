// The /metrics page's gzip body, side by side with zlib on the same page: what the exporter
// compressed it with before (zlib deflate, level 1, 32 KiB window, to a full flush) and what it
// uses now (ISA-L igzip level 1 through http::gzip_body, exporters/http/gzip_parts.h; libdeflate
// level 1 in session 26, 0.59-0.69 of zlib's CPU here, bench/README.md). Prints
// the CPU time per page of each (this thread's, CLOCK_THREAD_CPUTIME_ID), the compressed sizes
// and the ratios. Feed it a page saved from a running exporter:
//
//   curl -s 127.0.0.1:9879/metrics > /tmp/page.txt
//   rdmatop_bench_gzip /tmp/page.txt [--rounds 20]
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "exporters/http/gzip_parts.h"

namespace {

double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

/// Raw deflate of `text` as the exporter made its page's gzip front until session 26.
std::size_t zlib_level1(std::string_view text, std::string& out) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
  out.resize(deflateBound(&stream, static_cast<uLong>(text.size())) + 16);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&stream, Z_FULL_FLUSH);
  const std::size_t size = rc == Z_OK && stream.avail_in == 0 ? stream.total_out : 0;
  deflateEnd(&stream);
  // The CRC-32 the trailer needs, which gzip_body computes too.
  crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
  return size;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PAGE_FILE [--rounds N]\n", argv[0]);
    return 2;
  }
  int rounds = 20;
  if (argc >= 4 && std::string_view(argv[2]) == "--rounds") rounds = std::atoi(argv[3]);
  if (rounds <= 0) rounds = 1;
  std::ifstream file(argv[1], std::ios::binary);
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string page = buffer.str();
  if (!file || page.empty()) {
    std::fprintf(stderr, "%s: cannot read a page from it\n", argv[1]);
    return 2;
  }

  std::string out;
  std::size_t zlib_size = 0;
  const double z0 = thread_cpu_ms();
  for (int r = 0; r < rounds; ++r) zlib_size = zlib_level1(page, out);
  const double zlib_ms = (thread_cpu_ms() - z0) / rounds;

  std::size_t body_size = 0;
  const double b0 = thread_cpu_ms();
  for (int r = 0; r < rounds; ++r) {
    const auto body = rdmatop::http::gzip_body(page);
    body_size = body ? body->bytes.size() : 0;
  }
  const double body_ms = (thread_cpu_ms() - b0) / rounds;

  std::printf("page: %zu bytes, %d rounds\n", page.size(), rounds);
  std::printf("zlib level 1 (before): %.3f ms per page, %zu bytes\n", zlib_ms, zlib_size);
  std::printf("gzip_body (ISA-L igzip level 1): %.3f ms per page, %zu bytes\n", body_ms, body_size);
  std::printf("CPU per page, gzip_body / zlib: %.2f; size: %.2f\n", body_ms / zlib_ms,
              static_cast<double>(body_size) / static_cast<double>(zlib_size));
  return zlib_size > 0 && body_size > 0 ? 0 : 1;
}
