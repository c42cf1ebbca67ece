#include "exporters/prometheus/metrics_page.h"

#include <chrono>
#include <utility>

#include "exporters/prometheus/text_exposition.h"

namespace rdmatop {

MetricsPage::MetricsPage() : registry_(std::make_shared<prometheus::Registry>()) {
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

void MetricsPage::publish(std::string text, std::shared_ptr<const void> source) {
  last_size_.store(text.size(), std::memory_order_relaxed);
  Rendered page;
  page.text = std::make_shared<const std::string>(std::move(text));
  page.source = std::move(source);
  if (gzip_wanted_.load(std::memory_order_relaxed)) {
    if (auto body = http::gzip_body(*page.text)) {
      page.gzip = std::make_shared<const http::GzipBody>(std::move(*body));
    }
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  rendered_ = std::move(page);
}

bool MetricsPage::rendered_from(const std::shared_ptr<const void>& source) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return rendered_.source == source;
}

MetricsPage::Rendered MetricsPage::rendered() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return rendered_;
}

std::shared_ptr<const http::GzipBody> MetricsPage::gzip_body_of(const Rendered& page) {
  gzip_wanted_.store(true, std::memory_order_relaxed);
  if (page.gzip != nullptr) return page.gzip;
  const std::string_view text = page.text != nullptr ? std::string_view(*page.text) : "";
  auto body = http::gzip_body(text);
  if (!body) return nullptr;
  auto shared = std::make_shared<const http::GzipBody>(std::move(*body));
  // Kept for the other scrapes of this collection, unless a newer one was published meanwhile.
  const std::lock_guard<std::mutex> lock(mutex_);
  if (rendered_.text == page.text && rendered_.gzip == nullptr) rendered_.gzip = shared;
  return shared;
}

MetricsBody MetricsPage::render(bool accept_gzip) {
  const auto start = std::chrono::steady_clock::now();
  const Rendered page = rendered();
  scrapes_->Increment();
  auto own = std::make_shared<std::string>();
  append_text_exposition(*own, registry_->Collect());
  // The per-scrape families first: the collection's page, shared by every scrape of it, ends
  // the body, and its gzip body ends the gzip member (gzip_parts.h). The text format puts no
  // order on families.
  MetricsBody body;
  if (accept_gzip) {
    if (auto zipped = gzip_body_of(page)) {
      if (auto head = http::gzip_head(*own)) {
        // The page's bytes stay owned by the shared body (aliasing constructor).
        body.parts = {std::make_shared<const std::string>(std::move(*head)),
                      std::shared_ptr<const std::string>(zipped, &zipped->bytes),
                      std::make_shared<const std::string>(http::gzip_trailer(*own, *zipped))};
        body.gzip = true;
      }
    }
  }
  if (!body.gzip) {
    body.parts.push_back(std::move(own));
    if (page.text != nullptr) body.parts.push_back(page.text);
  }
  transferred_bytes_->Increment(static_cast<double>(http::body_size(body.parts)));
  latencies_->Observe(static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(
                                              std::chrono::steady_clock::now() - start)
                                              .count()));
  return body;
}

}  // namespace rdmatop
