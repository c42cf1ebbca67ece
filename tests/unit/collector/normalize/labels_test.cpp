#include "collector/normalize/labels.h"

#include <catch2/catch.hpp>

#include "collector/normalize/series.h"

namespace {

using rdmatop::Labels;
using rdmatop::SharedLabels;

const Labels kPort{{"device", "mlx5_0"}, {"port", "1"}};

TEST_CASE("SharedLabels: copies share one vector, an edit copies it first", "[labels]") {
  const SharedLabels a(kPort);
  SharedLabels b = a;
  CHECK(b.shares_with(a));
  CHECK(&b.get() == &a.get());
  CHECK(b == a);
  b.edit().emplace_back("priority", "3");
  CHECK_FALSE(b.shares_with(a));
  CHECK(a.get() == kPort);  // the other holder's labels did not change
  CHECK(b.size() == 3);
  CHECK(b[2].second == "3");
  CHECK_FALSE(b == a);
  // An edit of labels held once changes them in place.
  const Labels* before = &b.get();
  b.edit().pop_back();
  CHECK(&b.get() == before);
  // Equal labels in two vectors are equal, and order like the vectors.
  CHECK(b == a);
  CHECK_FALSE(b.shares_with(a));
  const SharedLabels later{{"device", "mlx5_1"}, {"port", "1"}};
  CHECK(a < later);
  CHECK_FALSE(later < a);
}

TEST_CASE("SharedLabels: none is empty, wherever it came from", "[labels]") {
  SharedLabels none;
  CHECK(none.empty());
  CHECK(none.begin() == none.end());
  CHECK(none == SharedLabels(Labels{}));
  CHECK(none == Labels{});
  none.edit().emplace_back("device", "rxe0");
  CHECK(none.size() == 1);
  // A reader taking `const Labels&` sees them through the conversion.
  CHECK(rdmatop::label_value(none, "device") == "rxe0");
  CHECK(rdmatop::series_key("up", none) == R"(up{device="rxe0"})");
}

}  // namespace
