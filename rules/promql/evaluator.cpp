#include "rules/promql/evaluator.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "rules/promql/functions.h"
#include "rules/promql/names.h"

namespace rdmatop::promql {

bool matches_all(const Labels& labels, const std::vector<LabelMatcher>& matchers) {
  for (const auto& m : matchers) {
    if (!m.matches(label_value(labels, m.name))) return false;
  }
  return true;
}

namespace {

// Run-time errors unwind to evaluate(), as Prometheus's ev.errorf panics to its recover().
struct EvalFailure {
  std::string message;
  int code = 0;
};

[[noreturn]] void fail(std::string message, int code = 0) {
  throw EvalFailure{std::move(message), code};
}

/// Samples loaded so far by one evaluation, shared by the evaluators of its subquery steps.
class SampleBudget {
 public:
  explicit SampleBudget(std::uint64_t max) : max_(max) {}
  std::uint64_t used() const { return used_; }
  void take(std::uint64_t n, const char* what) {
    used_ += n;
    if (used_ > max_) {
      fail(std::string(what) + " exceeds the sample budget of " + std::to_string(max_) +
               " samples per evaluation (like Prometheus's --query.max-samples)",
           kSampleBudgetExceeded);
    }
  }

 private:
  std::uint64_t max_;
  std::uint64_t used_ = 0;
};

/// Distinct label sets by position, in the order first seen (groups of an aggregation, series
/// of a subquery): a set is found by its hash and confirmed by comparing it with the set kept at
/// that position, instead of building a key string for every sample.
class LabelSetIndex {
 public:
  /// The position of `labels` among the sets seen so far (`kept(position)` returns the set
  /// stored there), or `next` if it is new, which is then recorded at `next`; and whether new.
  template <class Kept>
  std::pair<std::size_t, bool> find_or_add(const Labels& labels, std::size_t next, Kept kept) {
    return find_or_add_hashed(hash_labels(labels), next,
                              [&](std::size_t at) { return kept(at) == labels; });
  }

  /// As find_or_add, for a set not built yet: `hash` is hash_labels of the set, and
  /// `same(position)` tells whether the set at `position` is it.
  template <class Same>
  std::pair<std::size_t, bool> find_or_add_hashed(std::uint64_t hash, std::size_t next, Same same) {
    const auto [first, last] = positions_.equal_range(hash);
    for (auto it = first; it != last; ++it) {
      if (same(it->second)) return {it->second, false};
    }
    positions_.emplace(hash, next);
    return {next, true};
  }

 private:
  std::unordered_multimap<std::uint64_t, std::size_t> positions_;
};

/// Which labels a vector match's signature or an aggregation's group keeps: on(...) and
/// by(...) the listed ones; ignoring(...) and without(...) all but the listed ones and the
/// metric name (prometheus/promql/engine.go `signatureFunc` and the aggregation's grouping).
/// Label sets are matched by a hash of the kept labels and then compared exactly, not by
/// building a key string per sample.
class LabelFilter {
 public:
  LabelFilter(const std::vector<std::string>& listed, bool keep_listed)
      : listed_(listed), keep_listed_(keep_listed) {}
  static LabelFilter of_matching(const VectorMatching& m) { return {m.labels, m.on}; }
  static LabelFilter of_grouping(const Expr& e) { return {e.grouping, !e.without}; }

  bool keeps(const std::string& name) const {
    const bool listed = std::find(listed_.begin(), listed_.end(), name) != listed_.end();
    return keep_listed_ ? listed : (!listed && name != kMetricNameLabel);
  }
  /// hash_labels of the kept labels.
  std::uint64_t hash(const Labels& labels) const {
    std::uint64_t h = 0;
    for (const auto& [name, value] : labels) {
      if (keeps(name)) h = hash_label(h, name, value);
    }
    return h;
  }
  /// Whether `a` and `b` keep the same labels.
  bool same(const Labels& a, const Labels& b) const {
    auto ia = a.begin();
    auto ib = b.begin();
    while (true) {
      while (ia != a.end() && !keeps(ia->first)) ++ia;
      while (ib != b.end() && !keeps(ib->first)) ++ib;
      if (ia == a.end() || ib == b.end()) return ia == a.end() && ib == b.end();
      if (*ia != *ib) return false;
      ++ia;
      ++ib;
    }
  }
  /// The kept labels.
  Labels apply(const Labels& labels) const {
    Labels out;
    for (const auto& kv : labels) {
      if (keeps(kv.first)) out.push_back(kv);
    }
    return out;
  }

 private:
  const std::vector<std::string>& listed_;
  bool keep_listed_;
};

/// The samples of one side of a binary operator by their signature.
class SignatureIndex {
 public:
  explicit SignatureIndex(const VectorMatching& m) : signature_(LabelFilter::of_matching(m)) {}

  /// The indexed sample with the same signature as `labels`, or nullptr.
  const Sample* find(const Labels& labels) const {
    const auto [first, last] = samples_.equal_range(signature_.hash(labels));
    for (auto it = first; it != last; ++it) {
      if (signature_.same(it->second->labels, labels)) return it->second;
    }
    return nullptr;
  }

  /// Adds `s` unless a sample with its signature is indexed; returns that sample, or nullptr.
  const Sample* insert(const Sample& s) {
    if (const Sample* known = find(s.labels)) return known;
    samples_.emplace(signature_.hash(s.labels), &s);
    return nullptr;
  }

 private:
  LabelFilter signature_;
  std::unordered_multimap<std::uint64_t, const Sample*> samples_;
};

// engine.go shouldDropMetricName (v2.42.0): atan2 keeps the name.
bool drops_metric_name(BinaryOp op) {
  return op == BinaryOp::add || op == BinaryOp::sub || op == BinaryOp::mul || op == BinaryOp::div ||
         op == BinaryOp::mod || op == BinaryOp::pow;
}

// prometheus/promql/engine.go `vectorElemBinop`: the value and whether a comparison keeps it.
std::pair<double, bool> elem_binop(BinaryOp op, double l, double r) {
  switch (op) {
    case BinaryOp::add:
      return {l + r, true};
    case BinaryOp::sub:
      return {l - r, true};
    case BinaryOp::mul:
      return {l * r, true};
    case BinaryOp::div:
      return {l / r, true};
    case BinaryOp::pow:
      return {std::pow(l, r), true};
    case BinaryOp::mod:
      return {std::fmod(l, r), true};
    case BinaryOp::atan2:
      return {std::atan2(l, r), true};
    case BinaryOp::eq:
      return {l, l == r};
    case BinaryOp::ne:
      return {l, l != r};
    case BinaryOp::gt:
      return {l, l > r};
    case BinaryOp::lt:
      return {l, l < r};
    case BinaryOp::ge:
      return {l, l >= r};
    case BinaryOp::le:
      return {l, l <= r};
    default:
      fail(std::string("operator \"") + to_string(op) + "\" not allowed here");
  }
}

/// Go's math.Log2 (src/math/log10.go): exact for powers of two, else Log(frac)/Ln2 + exp.
/// Go's Log10 is Log(x) * (1/Ln10). Both differ from C's log2/log10 in the last bit for some
/// inputs (log10(20): C gives 1.3010299956639813, Go 1.301029995663981).
double go_log2(double x) {
  int exp = 0;
  const double frac = std::frexp(x, &exp);
  if (frac == 0.5) return static_cast<double>(exp - 1);
  return std::log(frac) * std::numbers::log2e + static_cast<double>(exp);
}

/// Go's constant 1/Ln10, folded exactly by the compiler before rounding (a double division by
/// the rounded Ln10 may differ in the last bit).
constexpr double kOneOverLn10 = 0.434294481903251827651128918916605082294397005803666566114;

/// Go's fmt "%f".
std::string go_float_f(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", v);
  return buf;
}

/// Go's strconv.FormatFloat(v, 'f', -1, 64): the shortest decimal that reads back as v, never
/// in exponent form (count_values' label, engine.go aggregation).
std::string format_float_plain(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  for (int precision = 0; precision <= 1100; ++precision) {
    char buf[1200];
    std::snprintf(buf, sizeof buf, "%.*f", precision, v);
    if (std::strtod(buf, nullptr) == v) return buf;
  }
  return format_float(v);
}

void check_unique(const Vector& v) {
  if (v.size() < 2) return;
  // check_unique runs on most evaluated vectors, so it allocates once, not per sample: the
  // label sets sorted by hash, and only those of equal hash compared.
  std::vector<std::pair<std::uint64_t, const Labels*>> hashed;
  hashed.reserve(v.size());
  for (const auto& s : v) hashed.emplace_back(hash_labels(s.labels), &s.labels);
  std::sort(hashed.begin(), hashed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto run = hashed.begin(); run != hashed.end();) {
    const auto next =
        std::find_if(run, hashed.end(), [&](const auto& h) { return h.first != run->first; });
    for (auto a = run; a != next; ++a) {
      for (auto b = a + 1; b != next; ++b) {
        if (*a->second == *b->second) fail("vector cannot contain metrics with the same labelset");
      }
    }
    run = next;
  }
}

/// A comparison with a number literal (`rate(x[1m]) >= 0.5`, `0 < x`), applied where the
/// operand's samples are made: a sample it drops is never built and its labels never copied.
/// On a healthy host nearly every sample of the built-in rules is dropped there.
struct KeepIf {
  BinaryOp op;
  double number;
  bool number_on_left;
  /// engine.go VectorscalarBinop: the sample keeps its value and labels when this holds.
  bool keeps(double v) const {
    return (number_on_left ? elem_binop(op, number, v) : elem_binop(op, v, number)).second;
  }
};

/// The value of a repeated subexpression (Expr::repeat_slot) and the samples it took from the
/// budget, which each later use takes again: the budget counts what Prometheus, which evaluates
/// every occurrence, would have loaded.
struct RepeatedValue {
  Value value;
  std::uint64_t samples = 0;
};
using RepeatedValues = std::vector<std::optional<RepeatedValue>>;

class Evaluator {
 public:
  /// `repeated`: the values of repeated subexpressions at this evaluation time; null for the
  /// steps of a subquery, which are evaluated at other times.
  Evaluator(const Queryable& storage, Timestamp ts, Timestamp query_ts, const EvalOptions& options,
            SampleBudget& budget, RepeatedValues* repeated = nullptr)
      : storage_(storage),
        ts_(ts),
        query_ts_(query_ts),
        options_(options),
        budget_(budget),
        repeated_(repeated) {}

  Value eval(const Expr& e) {
    if (e.repeat_slot < 0 || repeated_ == nullptr) return eval_node(e);
    const auto slot = static_cast<std::size_t>(e.repeat_slot);
    if (repeated_->size() <= slot) repeated_->resize(slot + 1);
    if (const auto& kept = (*repeated_)[slot]) {
      budget_.take(kept->samples, "a repeated subexpression");
      return kept->value;
    }
    const std::uint64_t before = budget_.used();
    Value v = eval_node(e);
    (*repeated_)[slot] = RepeatedValue{v, budget_.used() - before};
    return v;
  }

 private:
  Value eval_node(const Expr& e) {
    switch (e.kind) {
      case ExprKind::number:
        return scalar(e.number);
      case ExprKind::string: {
        Value v;
        v.type = ValueType::string;
        v.string = e.text;
        return v;
      }
      case ExprKind::paren:
        return eval(*e.args[0]);
      case ExprKind::vector_selector:
        return vector(select_instant(e, ref_time(e)));
      case ExprKind::matrix_selector:
        return matrix(select_range(e));
      case ExprKind::subquery:
        return matrix(eval_subquery(e));
      case ExprKind::unary: {
        Value v = eval(*e.args[0]);
        if (v.type == ValueType::scalar) return scalar(-v.scalar);
        for (auto& s : v.vector) {
          s.value = -s.value;
          delete_label(s.labels, kMetricNameLabel);
        }
        check_unique(v.vector);
        return v;
      }
      case ExprKind::binary:
        return eval_binary(e);
      case ExprKind::aggregate:
        return vector(eval_aggregate(e));
      case ExprKind::call:
        return eval_call(e);
    }
    fail("unknown expression kind");
  }

  static Value scalar(double x) {
    Value v;
    v.type = ValueType::scalar;
    v.scalar = x;
    return v;
  }
  static Value vector(Vector x) {
    Value v;
    v.type = ValueType::vector;
    v.vector = std::move(x);
    return v;
  }
  static Value matrix(Matrix x) {
    Value v;
    v.type = ValueType::matrix;
    v.matrix = std::move(x);
    return v;
  }

  /// The time a selector or subquery reads at: its `@` time (`start()` and `end()` are the
  /// query's time, an instant query's start and end) or the evaluation time, minus the offset
  /// (engine.go vectorSelectorSingle refTime, setOffsetForAtModifier).
  Timestamp ref_time(const Expr& e) const {
    switch (e.at) {
      case AtKind::timestamp:
        return e.at_ms - e.offset_ms;
      case AtKind::start:
      case AtKind::end:
        return query_ts_ - e.offset_ms;
      case AtKind::none:
        break;
    }
    return ts_ - e.offset_ms;
  }

  // Latest sample in [ref - lookback, ref]; a stale marker there means "no sample"
  // (engine.go `vectorSelectorSingle`). `times`, when given, receives each sample's timestamp.
  Vector select_instant(const Expr& e, Timestamp ref, std::vector<Timestamp>* times = nullptr,
                        const KeepIf* keep = nullptr) {
    Vector out;
    for (const StoredSeries* s : storage_.select(e.matchers)) {
      const auto& points = s->points();
      auto it = s->first_after(ref);
      if (it == points.begin()) continue;
      --it;
      if (it->t < ref - options_.lookback_ms || is_stale_nan(it->v)) continue;
      budget_.take(1, "an instant selector");
      if (keep != nullptr && !keep->keeps(it->v)) continue;
      out.push_back(Sample{s->labels, it->v});
      if (times != nullptr) times->push_back(it->t);
    }
    return out;
  }

  // `visit(series, window, start, end)` for each series a range selector selects, with its
  // closed window [ts - offset - range, ts - offset]; every point in it, staleness markers
  // included, counts against the sample budget.
  template <class Visit>
  void for_each_window(const Expr& e, const Visit& visit) {
    const Timestamp end = ref_time(e);
    const Timestamp start = end - e.range_ms;
    for (const StoredSeries* s : storage_.select(e.matchers)) {
      const StoredWindow w = s->window(start, end);
      budget_.take(static_cast<std::uint64_t>(w.end - w.begin), "a range selector");
      visit(*s, w, start, end);
    }
  }

  // All non-stale samples in each selected series' window.
  Matrix select_range(const Expr& e) {
    Matrix out;
    for_each_window(e, [&out](const StoredSeries& s, const StoredWindow& w, Timestamp, Timestamp) {
      if (w.samples == 0) return;
      RangeSeries rs{s.labels, {}};
      rs.points.reserve(w.samples);  // sized once, not grown per point
      for (auto it = w.begin; it != w.end; ++it) {
        if (!is_stale_nan(it->v)) rs.points.push_back(*it);
      }
      out.push_back(std::move(rs));
    });
    return out;
  }

  // engine.go SubqueryExpr: steps aligned to multiples of the step, from the first one at or
  // after ts - offset - range up to ts - offset.
  Matrix eval_subquery(const Expr& e) {
    const Timestamp step = e.step_ms != 0 ? e.step_ms : options_.default_step_ms;
    if (step <= 0) fail("subquery step must be positive");
    const Timestamp end = ref_time(e);
    const Timestamp lo = end - e.range_ms;
    Timestamp start = step * (lo / step);
    if (start < lo) start += step;
    LabelSetIndex index;
    Matrix out;
    // One unit per step before any work: [1000d:1ms] fails here at once instead of running
    // 86 billion empty steps.
    if (start <= end) {
      budget_.take(static_cast<std::uint64_t>((end - start) / step) + 1, "a subquery's steps");
    }
    for (Timestamp t = start; t <= end; t += step) {
      Evaluator sub(storage_, t, query_ts_, options_, budget_);
      Value v = sub.eval(*e.args[0]);
      budget_.take(v.vector.size(), "a subquery's results");
      for (auto& s : v.vector) {
        const auto [at, inserted] = index.find_or_add(
            s.labels, out.size(), [&](std::size_t i) -> const Labels& { return out[i].labels; });
        if (inserted) out.push_back(RangeSeries{s.labels, {}});
        out[at].points.push_back(Point{t, s.value});
      }
    }
    return out;
  }

  // The expression inside any parentheses around `arg`.
  static const Expr* without_parens(const Expr& arg) {
    const Expr* r = &arg;
    while (r->kind == ExprKind::paren) r = r->args[0].get();
    return r;
  }

  // The range argument of a call, inside any parentheses (`changes((x[5m]))`).
  static const Expr* range_operand(const Expr& call) {
    for (const auto& a : call.args) {
      const Expr* r = without_parens(*a);
      if (r->kind == ExprKind::matrix_selector || r->kind == ExprKind::subquery) return r;
    }
    return nullptr;
  }

  Value eval_call(const Expr& e) {
    const std::string& f = e.text;
    if (f == "time") return scalar(static_cast<double>(ts_) / 1000.0);
    if (f == "pi") return scalar(std::numbers::pi);
    if (f == "timestamp") return vector(eval_timestamp(e));
    if (f == "histogram_quantile") return vector(eval_histogram_quantile(e));
    // Native histograms only (functions.go): float samples give no result.
    if (f == "histogram_count" || f == "histogram_sum" || f == "histogram_fraction") {
      for (const auto& a : e.args) eval(*a);
      return vector({});
    }
    if (f == "label_join") return vector(label_join(e, eval(*e.args[0]).vector));
    if (e.args.empty()) {  // the date functions without an argument: vector(time())
      return vector(Vector{Sample{Labels{}, date_function(f, static_cast<double>(ts_ / 1000))}});
    }
    if (f == "vector") {
      return vector(Vector{Sample{Labels{}, eval(*e.args[0]).scalar}});
    }
    if (f == "scalar") {
      Value v = eval(*e.args[0]);
      return scalar(v.vector.size() == 1 ? v.vector[0].value : kNaN);
    }
    if (f == "absent") return vector(eval_absent(e, eval(*e.args[0]).vector.empty()));
    if (f == "absent_over_time") {
      return vector(eval_absent(e, eval(*e.args[0]).matrix.empty()));
    }
    if (const Expr* r = range_operand(e)) return vector(eval_range_function(e, *r));
    return vector(eval_instant_function(e));
  }

  // absent(): labels from the selector's equality matchers, except the metric name and any
  // label given twice (functions.go `createLabelsForAbsentFunction`).
  Vector eval_absent(const Expr& e, bool is_empty) {
    if (!is_empty) return {};
    // The argument itself, not inside parentheses (`absent((x{a="b"}))` has no labels): any
    // matcher but the first `=` of a label deletes it.
    Labels labels;
    const Expr* sel = e.args[0].get();
    if (sel->kind == ExprKind::vector_selector || sel->kind == ExprKind::matrix_selector) {
      std::set<std::string> has;
      for (const auto& m : sel->matchers) {
        if (m.name == kMetricNameLabel) continue;
        if (m.op == MatchOp::equal && has.count(m.name) == 0) {
          set_label(labels, m.name, m.value);
          has.insert(m.name);
        } else {
          delete_label(labels, m.name);
        }
      }
    }
    return Vector{Sample{labels, 1}};
  }

  // timestamp(): a vector selector's own sample times (engine.go special case; with `@`
  // the selector reads at the @ time and, as in v2.42.0, the offset is not applied); any other
  // argument's samples carry the evaluation time.
  Vector eval_timestamp(const Expr& e) {
    const Expr* arg = e.args[0].get();
    while (arg->kind == ExprKind::paren) arg = arg->args[0].get();
    Vector out;
    std::vector<Timestamp> times;
    if (arg->kind == ExprKind::vector_selector) {
      const Timestamp ref = arg->at == AtKind::none        ? ref_time(*arg)
                            : arg->at == AtKind::timestamp ? arg->at_ms
                                                           : query_ts_;
      out = select_instant(*arg, ref, &times);
    } else {
      out = eval(*arg).vector;
      times.assign(out.size(), ts_);
    }
    for (std::size_t k = 0; k < out.size(); ++k) {
      delete_label(out[k].labels, kMetricNameLabel);
      out[k].value = static_cast<double>(times[k]) / 1000.0;
    }
    check_unique(out);
    return out;
  }

  // functions.go funcHistogramQuantile over classic buckets: series grouped by their labels
  // without `le` (and the metric name); a series whose `le` is not a float is skipped.
  Vector eval_histogram_quantile(const Expr& e) {
    const double q = eval(*e.args[0]).scalar;
    Vector in = eval(*e.args[1]).vector;
    LabelSetIndex index;
    std::vector<std::pair<Labels, std::vector<Bucket>>> groups;
    for (auto& s : in) {
      const std::string le = label_value(s.labels, "le");
      double bound = 0;
      if (!parse_go_float(le, bound)) continue;
      Labels key = s.labels;
      delete_label(key, "le");
      delete_label(key, kMetricNameLabel);
      const auto [at, inserted] = index.find_or_add(
          key, groups.size(), [&](std::size_t i) -> const Labels& { return groups[i].first; });
      if (inserted) groups.emplace_back(std::move(key), std::vector<Bucket>{});
      groups[at].second.push_back(Bucket{bound, s.value});
    }
    Vector out;
    for (auto& [labels, buckets] : groups) {
      out.push_back(Sample{labels, bucket_quantile(q, std::move(buckets))});
    }
    return out;
  }

  /// Go's strconv.ParseFloat(s, 64) for the `le` label: decimal or hex floats, "Inf",
  /// "+Inf", "-Inf", "NaN" in any case, "Infinity"; underscores are not allowed in this mode.
  static bool parse_go_float(const std::string& s, double& out) {
    if (s.empty()) return false;
    std::string l;
    for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string body = l;
    if (body[0] == '+' || body[0] == '-') body = body.substr(1);
    if (body == "inf" || body == "infinity" || body == "nan") {
      if (body == "nan") {
        if (l != body) return false;  // Go rejects a signed NaN
        out = kNaN;
      } else {
        out = l[0] == '-' ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity();
      }
      return true;
    }
    for (char c : body) {
      if (std::isxdigit(static_cast<unsigned char>(c)) == 0 && c != '.' && c != 'e' && c != 'x' &&
          c != 'p' && c != '+' && c != '-') {
        return false;
      }
    }
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end != nullptr && *end == '\0';
  }

  // functions.go funcLabelJoin: the source labels' values joined with the separator; an
  // empty result deletes the destination label.
  Vector label_join(const Expr& e, Vector in) {
    const std::string dst = eval(*e.args[1]).string;
    const std::string sep = eval(*e.args[2]).string;
    std::vector<std::string> src;
    for (std::size_t k = 3; k < e.args.size(); ++k) {
      src.push_back(eval(*e.args[k]).string);
      if (!is_valid_label_name(src.back())) {
        fail("invalid source label name in label_join(): " + src.back());
      }
    }
    if (!is_valid_label_name(dst)) fail("invalid destination label name in label_join(): " + dst);
    for (auto& s : in) {
      std::string joined;
      for (std::size_t k = 0; k < src.size(); ++k) {
        if (k > 0) joined += sep;
        joined += label_value(s.labels, src[k]);
      }
      if (joined.empty()) {
        delete_label(s.labels, dst);
      } else {
        set_label(s.labels, dst, joined);
      }
    }
    check_unique(in);
    return in;
  }

  Vector eval_range_function(const Expr& e, const Expr& range_expr) {
    const std::string& f = e.text;
    std::vector<double> params;  // the scalar arguments, in order
    for (const auto& a : e.args) {
      if (without_parens(*a) != &range_expr) params.push_back(eval(*a).scalar);
    }
    const double param = params.empty() ? 0 : params[0];
    if (f == "holt_winters") {
      // funcHoltWinters panics on bad factors: an evaluation error.
      if (params[0] <= 0 || params[0] >= 1) {
        fail("invalid smoothing factor. Expected: 0 < sf < 1, got: " + go_float_f(params[0]));
      }
      if (params[1] <= 0 || params[1] >= 1) {
        fail("invalid trend factor. Expected: 0 < tf < 1, got: " + go_float_f(params[1]));
      }
    }
    const bool is_rate_function = f == "rate" || f == "increase" || f == "delta";
    if (is_rate_function && range_expr.kind == ExprKind::matrix_selector) {
      return rate_in_place(range_expr, f != "delta", f == "rate");
    }
    Matrix m = eval(range_expr).matrix;
    const Timestamp end = ref_time(range_expr);
    const Timestamp start = end - range_expr.range_ms;
    Vector out;
    for (auto& rs : m) {
      std::optional<double> v;
      if (is_rate_function) {  // of a subquery
        v = extrapolated_rate(rs.points, start, end, f != "delta", f == "rate");
      } else if (f == "irate" || f == "idelta") {
        v = instant_value(rs.points, f == "irate");
      } else if (f == "deriv" || f == "predict_linear") {
        if (rs.points.size() < 2) continue;
        // deriv: intercept at the first sample (prometheus#2674); predict_linear: at the
        // evaluation time.
        if (f == "deriv") {
          v = linear_regression(rs.points, rs.points.front().t).first;
        } else {
          const auto [slope, intercept] = linear_regression(rs.points, ts_);
          v = slope * param + intercept;
        }
      } else if (f == "holt_winters") {
        v = holt_winters(rs.points, params[0], params[1]);
      } else {
        v = over_time(f, rs.points, param);
      }
      if (!v) continue;
      // Every function but last_over_time drops the metric name (engine.go rangeEval).
      if (f != "last_over_time") delete_label(rs.labels, kMetricNameLabel);
      out.push_back(Sample{std::move(rs.labels), *v});
    }
    check_unique(out);
    return out;
  }

  // rate / increase / delta of a range selector, read where the samples are stored: two
  // binary searches and the series' sparse stale and reset indices (StoredSeries::window), so
  // the cost does not grow with the window. Only a window with a counter reset is walked, to
  // add its corrections in order. The same results as extrapolated_rate over select_range's
  // copy, to the last bit.
  Vector rate_in_place(const Expr& e, bool is_counter, bool is_rate, const KeepIf* keep = nullptr) {
    Vector out;
    for_each_window(
        e, [&](const StoredSeries& s, const StoredWindow& w, Timestamp start, Timestamp end) {
          if (w.samples < 2) return;
          const double change = is_counter && w.resets > 0
                                    ? counter_change(w.begin, w.end, w.first.v, w.last.v)
                                    : w.last.v - w.first.v;
          const double value = extrapolate(RateSamples{w.first, w.last, w.samples, change}, start,
                                           end, is_counter, is_rate);
          if (keep != nullptr && !keep->keeps(value)) return;
          out.push_back(Sample{without_metric_name(s.labels), value});
        });
    // Stored series have distinct label sets: when they all share one name (the selector
    // names its metric, as the built-in rules' do), dropping it leaves them distinct.
    const bool one_name = std::any_of(e.matchers.begin(), e.matchers.end(), [](const auto& m) {
      return m.name == kMetricNameLabel && m.op == MatchOp::equal;
    });
    if (!one_name) check_unique(out);
    return out;
  }

  Vector eval_instant_function(const Expr& e) {
    const std::string& f = e.text;
    Vector in = eval(*e.args[0]).vector;
    if (f == "sort" || f == "sort_desc") {
      const bool desc = f == "sort_desc";
      std::stable_sort(in.begin(), in.end(), [desc](const Sample& a, const Sample& b) {
        if (std::isnan(a.value)) return false;
        if (std::isnan(b.value)) return true;
        return desc ? a.value > b.value : a.value < b.value;
      });
      return in;
    }
    if (f == "label_replace") return label_replace(e, std::move(in));
    std::vector<double> params;
    for (std::size_t k = 1; k < e.args.size(); ++k) params.push_back(eval(*e.args[k]).scalar);
    if (f == "clamp" && params[1] < params[0]) return {};
    const bool date = f == "day_of_month" || f == "day_of_week" || f == "day_of_year" ||
                      f == "days_in_month" || f == "hour" || f == "minute" || f == "month" ||
                      f == "year";
    Vector out;
    for (auto& s : in) {
      const double x = s.value;
      double y = x;
      if (f == "abs")
        y = std::fabs(x);
      else if (f == "ceil")
        y = std::ceil(x);
      else if (f == "floor")
        y = std::floor(x);
      else if (f == "exp")
        y = std::exp(x);
      else if (f == "ln")
        y = std::log(x);
      else if (f == "log2")
        y = go_log2(x);
      else if (f == "log10")
        y = std::log(x) * kOneOverLn10;
      else if (f == "sqrt")
        y = std::sqrt(x);
      else if (f == "sgn")
        y = x > 0 ? 1 : (x < 0 ? -1 : x);
      else if (date)
        y = date_function(f, x);
      else if (f == "sin")
        y = std::sin(x);
      else if (f == "cos")
        y = std::cos(x);
      else if (f == "tan")
        y = std::tan(x);
      else if (f == "asin")
        y = std::asin(x);
      else if (f == "acos")
        y = std::acos(x);
      else if (f == "atan")
        y = std::atan(x);
      else if (f == "sinh")
        y = std::sinh(x);
      else if (f == "cosh")
        y = std::cosh(x);
      else if (f == "tanh")
        y = std::tanh(x);
      else if (f == "asinh")
        y = std::asinh(x);
      else if (f == "acosh")
        y = std::acosh(x);
      else if (f == "atanh")
        y = std::atanh(x);
      else if (f == "rad")
        y = x * std::numbers::pi / 180;
      else if (f == "deg")
        y = x * 180 / std::numbers::pi;
      else if (f == "round") {
        const double inv = 1.0 / (params.empty() ? 1.0 : params[0]);
        y = std::floor(x * inv + 0.5) / inv;
      }
      // Go's math.Max/Min propagate NaN from either argument.
      else if (f == "clamp_min")
        y = std::isnan(params[0]) ? kNaN : std::max(params[0], x);
      else if (f == "clamp_max")
        y = std::isnan(params[0]) ? kNaN : std::min(params[0], x);
      else if (f == "clamp") {
        y = std::isnan(params[0]) || std::isnan(params[1])
                ? kNaN
                : std::max(params[0], std::min(params[1], x));
      } else {
        fail("function \"" + f + "\" is not implemented");
      }
      if (std::isnan(x)) y = std::isnan(y) ? y : kNaN;
      delete_label(s.labels, kMetricNameLabel);
      out.push_back(Sample{std::move(s.labels), y});
    }
    check_unique(out);
    return out;
  }

  Vector label_replace(const Expr& e, Vector in) {
    const std::string dst = eval(*e.args[1]).string;
    const std::string repl = eval(*e.args[2]).string;
    const std::string src = eval(*e.args[3]).string;
    const std::string pattern = eval(*e.args[4]).string;
    // functions.go funcLabelReplace: RE2, anchored; the replacement goes through Go's
    // Regexp.ExpandString; an empty result deletes the label.
    auto re = AnchoredRegex::compile(pattern);
    if (!re) fail("invalid regular expression in label_replace(): " + pattern);
    if (!is_valid_label_name(dst))
      fail("invalid destination label name in label_replace(): " + dst);
    std::vector<std::string> groups;
    for (auto& s : in) {
      const std::string value = label_value(s.labels, src);
      if (!re->match_groups(value, groups)) continue;
      const std::string out = re->expand(repl, groups);
      if (out.empty()) {
        delete_label(s.labels, dst);
      } else {
        set_label(s.labels, dst, out);
      }
    }
    check_unique(in);
    return in;
  }

  // `operand OP number` or `number OP operand` with a comparison (no `bool`) whose operand is
  // a vector selector or rate/increase/delta of a range selector: evaluated with the
  // comparison applied as the samples are made. nullopt for any other expression.
  std::optional<Vector> eval_compared_with_number(const Expr& e) {
    if (!is_comparison(e.op) || e.return_bool) return std::nullopt;
    const Expr* left = without_parens(*e.args[0]);
    const Expr* right = without_parens(*e.args[1]);
    const bool number_on_left = left->kind == ExprKind::number;
    if (!number_on_left && right->kind != ExprKind::number) return std::nullopt;
    const Expr* operand = number_on_left ? right : left;
    const KeepIf keep{e.op, (number_on_left ? left : right)->number, number_on_left};
    if (operand->kind == ExprKind::vector_selector) {
      return select_instant(*operand, ref_time(*operand), nullptr, &keep);
    }
    if (operand->kind != ExprKind::call || operand->args.size() != 1) return std::nullopt;
    const std::string& f = operand->text;
    if (f != "rate" && f != "increase" && f != "delta") return std::nullopt;
    const Expr* range = without_parens(*operand->args[0]);
    if (range->kind != ExprKind::matrix_selector) return std::nullopt;
    return rate_in_place(*range, f != "delta", f == "rate", &keep);
  }

  Value eval_binary(const Expr& e) {
    if (auto compared = eval_compared_with_number(e)) return vector(std::move(*compared));
    Value lhs = eval(*e.args[0]);
    Value rhs = eval(*e.args[1]);
    if (lhs.type == ValueType::scalar && rhs.type == ValueType::scalar) {
      auto [v, keep] = elem_binop(e.op, lhs.scalar, rhs.scalar);
      if (is_comparison(e.op)) v = keep ? 1 : 0;
      return scalar(v);
    }
    if (is_set_operator(e.op)) {
      return vector(set_binop(e, std::move(lhs.vector), std::move(rhs.vector)));
    }
    if (lhs.type == ValueType::vector && rhs.type == ValueType::vector) {
      Vector out = vector_binop(e, lhs.vector, rhs.vector);
      check_unique(out);
      return vector(std::move(out));
    }
    const bool swap = lhs.type == ValueType::scalar;
    Vector out = scalar_binop(e, std::move(swap ? rhs.vector : lhs.vector),
                              swap ? lhs.scalar : rhs.scalar, swap);
    // Every vector the evaluator makes has distinct label sets; a filter that keeps its
    // samples' labels (`rate(...) > 0.5`, the built-in rules' usual form) keeps them distinct.
    if (drops_metric_name(e.op) || e.return_bool) check_unique(out);
    return vector(std::move(out));
  }

  // engine.go `VectorscalarBinop`: a comparison keeps the vector's value even when the
  // scalar is on the left.
  static Vector scalar_binop(const Expr& e, Vector v, double s, bool swap) {
    Vector out;
    for (auto& sample : v) {
      double l = sample.value;
      double r = s;
      if (swap) std::swap(l, r);
      auto [value, keep] = elem_binop(e.op, l, r);
      if (is_comparison(e.op) && swap) value = r;
      if (e.return_bool) {
        value = keep ? 1 : 0;
        keep = true;
      }
      if (!keep) continue;
      if (drops_metric_name(e.op) || e.return_bool) delete_label(sample.labels, kMetricNameLabel);
      out.push_back(Sample{std::move(sample.labels), value});
    }
    return out;
  }

  // The kept samples are moved, not copied, out of the operands.
  static Vector set_binop(const Expr& e, Vector lhs, Vector rhs) {
    Vector out;
    SignatureIndex other(e.matching);
    if (e.op == BinaryOp::land) {
      if (lhs.empty() || rhs.empty()) return out;
      for (const auto& s : rhs) other.insert(s);
      for (auto& s : lhs) {
        if (other.find(s.labels) != nullptr) out.push_back(std::move(s));
      }
    } else if (e.op == BinaryOp::lor) {
      // The index points into lhs: the right side's survivors are found before lhs moves.
      for (const auto& s : lhs) other.insert(s);
      std::vector<Sample*> kept;
      for (auto& s : rhs) {
        if (other.find(s.labels) == nullptr) kept.push_back(&s);
      }
      out = std::move(lhs);
      for (Sample* s : kept) out.push_back(std::move(*s));
    } else {
      for (const auto& s : rhs) other.insert(s);
      for (auto& s : lhs) {
        if (other.find(s.labels) == nullptr) out.push_back(std::move(s));
      }
    }
    return out;
  }

  // engine.go `VectorBinop` + `resultMetric`.
  static Vector vector_binop(const Expr& e, const Vector& lhs_in, const Vector& rhs_in) {
    const VectorMatching& m = e.matching;
    const bool one_to_many = m.card == Cardinality::one_to_many;
    const Vector& lhs = one_to_many ? rhs_in : lhs_in;
    const Vector& rhs = one_to_many ? lhs_in : rhs_in;
    SignatureIndex right(m);
    for (const auto& rs : rhs) {
      if (const Sample* known = right.insert(rs)) {
        fail(std::string("found duplicate series for the match group on the ") +
             (one_to_many ? "left" : "right") + " hand-side of the operation: [" +
             format_labels(rs.labels) + ", " + format_labels(known->labels) +
             "];many-to-many matching not allowed: matching labels must be unique on one side");
      }
    }
    // One-to-one: whether each right-hand sample (one per signature) was matched already.
    // Otherwise: the output label sets each gave, by a hash of the set and the sample, as
    // positions in `out` (no label set is copied to remember it).
    std::vector<bool> matched(rhs.size(), false);
    LabelSetIndex outputs;
    std::vector<std::size_t> output_rhs;
    const bool drops_name = drops_metric_name(e.op);
    Vector out;
    for (const auto& ls : lhs) {
      const Sample* match = right.find(ls.labels);
      if (match == nullptr) continue;
      const Sample& rs = *match;
      const auto rhs_index = static_cast<std::size_t>(match - rhs.data());
      double vl = ls.value;
      double vr = rs.value;
      if (one_to_many) std::swap(vl, vr);
      auto [value, keep] = elem_binop(e.op, vl, vr);
      if (e.return_bool) {
        value = keep ? 1 : 0;
      } else if (!keep) {
        continue;
      }
      // engine.go resultMetric: the left-hand labels, without the metric name for arithmetic;
      // one-to-one keeps only the on() labels, or drops the ignoring() ones. Copied label by
      // label, not copied whole and then erased from.
      Labels metric;
      metric.reserve(ls.labels.size());
      for (const auto& kv : ls.labels) {
        if (drops_name && kv.first == kMetricNameLabel) continue;
        if (m.card == Cardinality::one_to_one) {
          const bool listed =
              std::find(m.labels.begin(), m.labels.end(), kv.first) != m.labels.end();
          if (m.on != listed) continue;
        }
        metric.push_back(kv);
      }
      for (const auto& l : m.include) set_label(metric, l, label_value(rs.labels, l));
      if (e.return_bool) delete_label(metric, kMetricNameLabel);
      if (m.card == Cardinality::one_to_one) {
        if (matched[rhs_index]) {
          fail(
              "multiple matches for labels: many-to-one matching must be explicit "
              "(group_left/group_right)");
        }
        matched[rhs_index] = true;
      } else {
        const std::uint64_t hash = hash_combine(hash_labels(metric), rhs_index);
        const bool added = outputs
                               .find_or_add_hashed(hash, out.size(),
                                                   [&](std::size_t at) {
                                                     return output_rhs[at] == rhs_index &&
                                                            out[at].labels == metric;
                                                   })
                               .second;
        if (!added) fail("multiple matches for labels: grouping labels must ensure unique matches");
        output_rhs.push_back(rhs_index);
      }
      out.push_back(Sample{std::move(metric), value});
    }
    return out;
  }

  Vector eval_aggregate(const Expr& e) {
    const AggregateOp op = e.aggregate;
    const LabelFilter group = LabelFilter::of_grouping(e);
    double param = 0;
    std::string label_param;
    if (e.args.size() == 2) {
      Value p = eval(*e.args[0]);
      param = p.scalar;
      label_param = p.string;
    }
    Vector in = eval(*e.args.back()).vector;
    struct Group {
      Labels labels;
      double value = 0;
      double count = 0;
      double mean = 0;
      double m2 = 0;
      std::vector<double> values;
      Vector top;
    };
    LabelSetIndex index;
    std::vector<Group> groups;
    if (op == AggregateOp::topk || op == AggregateOp::bottomk) {
      // engine.go: k must convert to int64; below 1 the result is empty.
      if (!(param >= -9.223372036854775808e18 && param < 9.223372036854775808e18)) {
        fail("Scalar value " + format_float(param) + " overflows int64");
      }
      if (param < 1) return {};
    }
    if (op == AggregateOp::count_values && !is_valid_label_name(label_param)) {
      fail("invalid label name \"" + label_param + "\"");
    }
    const auto k = static_cast<std::size_t>(
        std::min(param >= 1 ? param : 0, static_cast<double>(in.size() + 1)));
    for (auto& s : in) {
      Labels key;
      std::pair<std::size_t, bool> found;
      if (op == AggregateOp::count_values) {
        Labels with_value = s.labels;
        set_label(with_value, label_param, format_float_plain(s.value));
        key = group.apply(with_value);
        if (!e.without) set_label(key, label_param, format_float_plain(s.value));
        found = index.find_or_add(key, groups.size(),
                                  [&](std::size_t i) -> const Labels& { return groups[i].labels; });
      } else {
        // The group's label set is built only when the group is new: most samples join one.
        found = index.find_or_add_hashed(group.hash(s.labels), groups.size(), [&](std::size_t i) {
          return group.same(s.labels, groups[i].labels);
        });
        if (found.second) key = group.apply(s.labels);
      }
      const auto [at, inserted] = found;
      if (inserted) {
        // engine.go aggregation: the first sample starts the group (value and mean).
        groups.push_back(Group{std::move(key), s.value, 1, s.value, 0, {}, {}});
        if (op == AggregateOp::quantile) groups.back().values.push_back(s.value);
        if (op == AggregateOp::topk || op == AggregateOp::bottomk)
          groups.back().top.push_back(std::move(s));
        continue;
      }
      Group& g = groups[at];
      g.count += 1;
      if (op == AggregateOp::stddev || op == AggregateOp::stdvar) {
        const double delta = s.value - g.mean;
        g.mean += delta / g.count;
        g.m2 += delta * (s.value - g.mean);
      } else if (op == AggregateOp::avg) {
        // An incremental mean that does not overflow near the float limits; an infinite
        // mean stays as it is unless a NaN or the opposite infinity comes.
        if (std::isinf(g.mean)) {
          if (std::isinf(s.value) && (g.mean > 0) == (s.value > 0)) continue;
          if (!std::isinf(s.value) && !std::isnan(s.value)) continue;
        }
        g.mean += s.value / g.count - g.mean / g.count;
      }
      if (op == AggregateOp::sum) {
        g.value += s.value;
      } else if (op == AggregateOp::min) {
        if (g.value > s.value || std::isnan(g.value)) g.value = s.value;
      } else if (op == AggregateOp::max) {
        if (g.value < s.value || std::isnan(g.value)) g.value = s.value;
      } else if (op == AggregateOp::quantile) {
        g.values.push_back(s.value);
      } else if (op == AggregateOp::topk || op == AggregateOp::bottomk) {
        g.top.push_back(std::move(s));
      }
    }
    Vector out;
    for (auto& g : groups) {
      if (op == AggregateOp::topk || op == AggregateOp::bottomk) {
        const bool top = op == AggregateOp::topk;
        std::stable_sort(g.top.begin(), g.top.end(), [top](const Sample& a, const Sample& b) {
          if (std::isnan(a.value)) return false;  // NaN ranks last either way
          if (std::isnan(b.value)) return true;
          return top ? a.value > b.value : a.value < b.value;
        });
        if (g.top.size() > k) g.top.resize(k);
        for (auto& s : g.top) out.push_back(std::move(s));
        continue;
      }
      double v = g.value;
      if (op == AggregateOp::avg)
        v = g.mean;
      else if (op == AggregateOp::count || op == AggregateOp::count_values)
        v = g.count;
      else if (op == AggregateOp::group)
        v = 1;
      else if (op == AggregateOp::stdvar)
        v = g.m2 / g.count;
      else if (op == AggregateOp::stddev)
        v = std::sqrt(g.m2 / g.count);
      else if (op == AggregateOp::quantile)
        v = quantile(param, g.values);
      out.push_back(Sample{std::move(g.labels), v});
    }
    return out;
  }

  const Queryable& storage_;
  Timestamp ts_;
  Timestamp query_ts_;  ///< the time of the whole query, for `@ start()` / `@ end()`
  EvalOptions options_;
  SampleBudget& budget_;
  RepeatedValues* repeated_;
};

}  // namespace

Result<Value> evaluate(const Expr& expr, const Queryable& storage, Timestamp ts,
                       const EvalOptions& options) {
  try {
    SampleBudget budget(options.max_samples);
    RepeatedValues repeated;
    Evaluator ev(storage, ts, ts, options, budget, &repeated);
    return ev.eval(expr);
  } catch (const EvalFailure& f) {
    return Error{f.code, f.message};
  }
}

}  // namespace rdmatop::promql
