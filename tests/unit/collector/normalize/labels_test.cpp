#include "collector/normalize/labels.h"

#include <catch2/catch.hpp>
#include <string>

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

TEST_CASE("LabelArena: its sets outlive it, do not move, and an edit changes no other set",
          "[labels]") {
  SharedLabels first, second, empty;
  const Labels* where = nullptr;
  {
    rdmatop::LabelArena arena;
    first = arena.add(kPort);
    where = &first.get();
    // Sets made after it (enough for the arena to grow) leave it where it is.
    for (int i = 0; i < 1000; ++i) arena.add(Labels{{"device", "d" + std::to_string(i)}});
    second = arena.add(Labels{{"device", "mlx5_1"}, {"port", "2"}});
    empty = arena.add(Labels{});
  }
  CHECK(&first.get() == where);
  CHECK(first.get() == kPort);
  CHECK(second.get() == Labels{{"device", "mlx5_1"}, {"port", "2"}});
  CHECK(empty.empty());
  CHECK(empty == SharedLabels());
  // Another holder of the arena (second) shares its count: an edit copies the set first.
  SharedLabels copy = first;
  CHECK(copy.shares_with(first));
  copy.edit().emplace_back("priority", "3");
  CHECK_FALSE(copy.shares_with(first));
  CHECK(first.get() == kPort);
  CHECK(second.size() == 2);
  CHECK(copy.size() == 3);
}

}  // namespace
