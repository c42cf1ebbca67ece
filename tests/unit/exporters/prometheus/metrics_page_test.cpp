#include "exporters/prometheus/metrics_page.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "exporters/prometheus/text_exposition.h"
#include "tests/support/gunzip.h"

using namespace rdmatop;
using rdmatop::test::gunzip;

namespace {

/// A page's text, as the exporter renders it.
std::string page_with(double value) {
  prometheus::MetricFamily family;
  family.name = "rdma_port_rx_bytes_total";
  family.help = "bytes";
  family.type = prometheus::MetricType::Counter;
  for (int port = 0; port < 200; ++port) {
    prometheus::ClientMetric metric;
    metric.label = {{"device", "mlx5_" + std::to_string(port)}, {"port", "1"}};
    metric.counter.value = value + port;
    family.metric.push_back(metric);
  }
  std::string text;
  append_text_exposition(text, {family});
  return text;
}

std::string joined(const MetricsBody& body) {
  std::string out;
  for (const auto& part : body.parts) out += *part;
  return out;
}

/// The text after the per-scrape families (exposer_*, first), which change with every scrape.
std::string collection_part(const std::string& text) {
  const std::size_t page = text.find("# HELP rdma_");
  return page == std::string::npos ? std::string() : text.substr(page);
}

}  // namespace

TEST_CASE("every scrape of a collection sends the bytes rendered when it was published",
          "[metrics_page]") {
  MetricsPage page;
  page.publish(page_with(1000));
  const MetricsBody first = page.render(false);
  const MetricsBody second = page.render(false);
  REQUIRE(first.parts.size() == 2);
  REQUIRE(second.parts.size() == 2);
  CHECK(first.parts[1] == second.parts[1]);   // the same rendered page, not a copy
  CHECK(*first.parts[1] == page_with(1000));  // after the per-scrape families
  CHECK_FALSE(first.gzip);
  const std::string text = joined(second);
  CHECK(text.find("rdma_port_rx_bytes_total{device=\"mlx5_7\",port=\"1\"} 1007\n") !=
        std::string::npos);
  CHECK(text.find("exposer_scrapes_total 2\n") != std::string::npos);

  page.publish(page_with(5000));
  const std::string after = joined(page.render(false));
  CHECK(after.find("device=\"mlx5_7\",port=\"1\"} 5007\n") != std::string::npos);
  CHECK(after.find("} 1007\n") == std::string::npos);
  CHECK(after.find("exposer_scrapes_total 3\n") != std::string::npos);
}

TEST_CASE("a gzip scrape decodes to what a plain scrape of the same collection sends",
          "[metrics_page]") {
  MetricsPage page;
  page.publish(page_with(1000));
  const MetricsBody zipped = page.render(true);  // the first gzip scrape makes the front
  REQUIRE(zipped.gzip);
  const std::string plain = joined(page.render(false));
  const std::string unzipped = gunzip(joined(zipped));
  CHECK(collection_part(unzipped) == page_with(1000));
  CHECK(collection_part(unzipped) == collection_part(plain));
  CHECK(unzipped.find("exposer_scrapes_total 1\n") != std::string::npos);

  // Once a scraper asked for gzip, publish compresses each collection: the body is shared.
  page.publish(page_with(2000));
  const MetricsBody a = page.render(true);
  const MetricsBody b = page.render(true);
  REQUIRE(a.parts.size() == 3);
  CHECK(a.parts[1] == b.parts[1]);
  CHECK(*a.parts[0] != *b.parts[0]);  // the head: exposer_scrapes_total differs
  CHECK(collection_part(gunzip(joined(b))) == collection_part(joined(page.render(false))));
  CHECK(gunzip(joined(b)).find("} 2007\n") != std::string::npos);
}

TEST_CASE("before the first collection a scrape still answers", "[metrics_page]") {
  MetricsPage page;
  const MetricsBody plain = page.render(false);
  CHECK(joined(plain).find("exposer_scrapes_total 1\n") != std::string::npos);
  const MetricsBody zipped = page.render(true);
  REQUIRE(zipped.gzip);
  CHECK(gunzip(joined(zipped)).find("exposer_scrapes_total 2\n") != std::string::npos);
}
