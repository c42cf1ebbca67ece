#include "collector/normalize/shared_text.h"

#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>

namespace {

using rdmatop::SharedText;

TEST_CASE("SharedText: copies share one string and compare as the text", "[shared_text]") {
  const SharedText a("rdma_pfc_pause_seconds_total");
  const SharedText b = a;
  CHECK(b.shares_with(a));
  CHECK(b.data() == a.data());
  const SharedText c(std::string("rdma_pfc_pause_seconds_total"));
  CHECK_FALSE(c.shares_with(a));
  CHECK(c == a);
  CHECK(a == std::string("rdma_pfc_pause_seconds_total"));
  CHECK(a == std::string_view("rdma_pfc_pause_seconds_total"));
  CHECK(a == "rdma_pfc_pause_seconds_total");
  CHECK(a != "rdma_pfc_pause_seconds");
  CHECK(std::string("rdma_pfc_pause_seconds_total") == a);
  CHECK(SharedText("a") < SharedText("b"));
  CHECK(SharedText("b") > std::string("a"));
  CHECK(a.starts_with("rdma_pfc"));
  CHECK(a.ends_with("_total"));
  CHECK(a.contains("_seconds_"));
  CHECK_FALSE(a.contains("_bytes"));
  CHECK(a + "{}" == "rdma_pfc_pause_seconds_total{}");
  CHECK("x:" + SharedText("y") == "x:y");
  std::ostringstream out;
  out << a;
  CHECK(out.str() == "rdma_pfc_pause_seconds_total");
  // A reader taking `const std::string&` sees it through the conversion.
  const std::map<std::string, int, std::less<>> counts{{"rdma_pfc_pause_seconds_total", 1}};
  CHECK(counts.at(a) == 1);
}

TEST_CASE("SharedText: empty, made any way, is \"\"", "[shared_text]") {
  CHECK(SharedText().empty());
  CHECK(SharedText("").empty());
  CHECK(SharedText() == SharedText(std::string()));
  CHECK(SharedText() == "");
  CHECK(SharedText().c_str()[0] == '\0');
  CHECK(SharedText().size() == 0);
}

}  // namespace
