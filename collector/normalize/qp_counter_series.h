// Canonical series of QP counters (PortSample::qp_counter_mode and bound_counters, read by
// collect_qp_counters): the port's counter mode, how many counters are bound, and per bound
// counter its QP count and raw hardware counters. Port-scope series labelled `counter_id` and
// the owner (`pid`, `comm`), never the QPs: a counter's QP list changes with every connection,
// the counter does not. Families listed with the host-configuration ones (host_config_series.h)
// and documented in docs/metrics.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/normalize/counter_table.h"
#include "collector/normalize/series.h"

namespace rdmatop {

/// Whether the driver can bind QPs to counters at all: only drivers with counter_bind_qp
/// (mlx5 among those rdmatop knows; core/counters.c __rdma_counter_bind_qp answers EOPNOTSUPP
/// for the others). nullopt for a driver rdmatop does not know.
std::optional<bool> binds_qp_counters(std::string_view rdma_driver);

/// The canonical series a raw port hw counter feeds on this driver family (the counter table's
/// single-counter port rows), e.g. mlx5 "out_of_sequence" -> "rdma_out_of_sequence_total";
/// empty when none does.
std::string_view canonical_series_of(DriverFamily family, std::string_view raw);

/// The owner of a bound counter as the `comm` label and the report show it: the process name,
/// "[name]" for a kernel user, empty when the kernel named none (manual binding).
std::string bound_counter_owner(const BoundCounter& counter);

/// Appends the QP counter series of `snapshot` (unsorted) to `out`.
void add_qp_counter_series(const Snapshot& snapshot, std::vector<Series>& out);

}  // namespace rdmatop
