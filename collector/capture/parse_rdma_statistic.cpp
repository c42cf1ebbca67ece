// `rdma statistic [show] [link DEV/PORT]` (iproute2 rdma/stat.c, rdma-statistic.8): per port,
// "link DEV/PORT name value name value ..." on one line, which terminals and mail archives
// wrap, or (iproute2 >= 6.7, and -p before) "link DEV/PORT" and one "name value" a line:
// continuation lines (indented) carry more pairs. A name whose value a cut paste lost is
// dropped. Counter names are the driver's, as hw_counters/ has them.
#include <string>
#include <vector>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"
#include "collector/capture/rdma_statistic_facts.h"

namespace rdmatop::capture {
namespace {

// A bound QP counter of `rdma statistic qp show` (rdma/stat.c res_counter_line: "link DEV/PORT
// cntn N [qp-type T] [pid P] comm C", its counters and "LQPN: <...>" on indented lines): its
// counters are the bound QPs' share, not the port's, which the kernel already adds them to
// (nldev.c stat_get_doit_default_counter). A section of them is read as `rdma statistic qp
// show` (parse_rdma_qp_counters.cpp); here they are only kept out of the port's counters.
bool is_qp_counter_record(std::string_view line) {
  const auto words = split_words(line);
  return words.size() >= 4 && words[0] == "link" && words[2] == "cntn" && parse_dev_port(words[1]);
}

bool is_rdma_stat_record(std::string_view line) {
  const auto words = split_words(line);
  // Since iproute2 6.7 (rdma/stat.c res_get_hwcounters: newline_indent before every counter,
  // before only with -p) the port's line is "link DEV/PORT" alone, one indented counter a line.
  if (words.size() == 2 && words[0] == "link") return parse_dev_port(words[1]).has_value();
  if (words.size() < 4 || words[0] != "link" || !parse_dev_port(words[1])) return false;
  if (words[2] == "cntn") return false;  // rdma statistic qp show
  for (std::size_t i = 2; i < words.size(); ++i) {
    if (words[i] == "state" || words[i] == "physical_state") return false;  // rdma link
  }
  return is_decimal(words[3]);
}

std::size_t detect_rdma_statistic(const Section& s) {
  return score_lines(s, 100, is_rdma_stat_record);
}

void parse_rdma_statistic(const Section& s, Facts& facts, LineLog& log) {
  struct Record {
    std::string dev;
    std::uint32_t port = 0;
    std::vector<std::string> words;
  };
  std::vector<Record> records;
  bool in_qp_counter = false;  // the indented lines of a bound counter are its, not a port's
  for (const Line& line : s.lines) {
    const bool indented =
        !line.text.empty() && (line.text.front() == ' ' || line.text.front() == '\t');
    if (is_qp_counter_record(line.text) || (in_qp_counter && indented)) {
      in_qp_counter = true;
      log.ignore("rdma statistic qp show counter: not the port's counters");
      continue;
    }
    in_qp_counter = false;
    if (is_rdma_stat_record(line.text)) {
      const auto words = split_words(line.text);
      const auto dp = parse_dev_port(words[1]);
      records.push_back(Record{dp->first, dp->second, {}});
      for (std::size_t i = 2; i < words.size(); ++i) records.back().words.emplace_back(words[i]);
      log.use();
    } else if (!records.empty() && indented) {
      for (const auto w : split_words(line.text)) records.back().words.emplace_back(w);
      log.use();
    } else {
      ignore_line(log, line.text, "not rdma statistic output");
    }
  }
  for (const Record& r : records) {
    facts.devices[r.dev].ports[r.port];  // a record names its port, counters or not
    for (std::size_t i = 0; i + 1 < r.words.size(); i += 2) {
      put_rdma_hw_counter(facts, r.dev, r.port, r.words[i], r.words[i + 1]);
    }
  }
}

}  // namespace

bool put_rdma_hw_counter(Facts& facts, std::string_view dev, std::uint32_t port,
                         std::string_view name, std::string_view value) {
  if (!is_decimal(value) || !is_object_name(name) || !is_object_name(dev)) return false;
  put(facts.devices[std::string(dev)].ports[port].files, "hw_counters/" + std::string(name),
      std::string(value));
  return true;
}

FormatParser rdma_statistic_format() {
  return {"rdma statistic", detect_rdma_statistic, parse_rdma_statistic};
}

}  // namespace rdmatop::capture
