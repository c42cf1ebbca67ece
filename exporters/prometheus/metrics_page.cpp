#include "exporters/prometheus/metrics_page.h"

#include <prometheus/text_serializer.h>
#include <zlib.h>

namespace rdmatop {

MetricsPage::MetricsPage(std::shared_ptr<ReportCollectable> collectable)
    : collectable_(std::move(collectable)), registry_(std::make_shared<prometheus::Registry>()) {
  // As prometheus-cpp 1.0.1's pull/src/handler.cc defines them.
  transferred_bytes_ = &prometheus::BuildCounter()
                            .Name("exposer_transferred_bytes_total")
                            .Help("Transferred bytes to metrics services")
                            .Register(*registry_)
                            .Add({});
  scrapes_ = &prometheus::BuildCounter()
                  .Name("exposer_scrapes_total")
                  .Help("Number of times metrics were scraped")
                  .Register(*registry_)
                  .Add({});
  latencies_ =
      &prometheus::BuildSummary()
           .Name("exposer_request_latencies")
           .Help("Latencies of serving scrape requests, in microseconds")
           .Register(*registry_)
           .Add({}, prometheus::Summary::Quantiles{{0.5, 0.05}, {0.9, 0.01}, {0.99, 0.001}});
}

MetricsBody MetricsPage::render(bool accept_gzip) {
  const auto start = std::chrono::steady_clock::now();
  const auto families = collectable_->families();
  std::shared_ptr<const std::string> report_text;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (cached_families_ == families) report_text = cached_text_;
  }
  const prometheus::TextSerializer serializer;
  if (report_text == nullptr) {
    // Serialized outside the lock; two scrapes racing on a new collection make the same text.
    report_text = std::make_shared<const std::string>(serializer.Serialize(*families));
    const std::lock_guard<std::mutex> lock(mutex_);
    cached_families_ = families;
    cached_text_ = report_text;
  }
  scrapes_->Increment();
  std::string text = *report_text + serializer.Serialize(registry_->Collect());
  MetricsBody body;
  if (accept_gzip) {
    std::string compressed = gzip_compress(text);
    if (!compressed.empty()) {
      text = std::move(compressed);
      body.gzip = true;
    }
  }
  transferred_bytes_->Increment(static_cast<double>(text.size()));
  latencies_->Observe(static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(
                                              std::chrono::steady_clock::now() - start)
                                              .count()));
  body.text = std::make_shared<const std::string>(std::move(text));
  return body;
}

std::string gzip_compress(const std::string& text) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip wrapper instead of zlib's (zlib.h, deflateInit2).
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return {};
  }
  std::string out(deflateBound(&stream, text.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return rc == Z_STREAM_END ? out : std::string();
}

}  // namespace rdmatop
