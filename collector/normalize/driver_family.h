// The driver family a counter-table row applies to, and the ONE rule that names the families of
// a port: the normalizer, the PFC fast path, the missing-metric explanations and the QP counter
// readers all choose rows through driver_families(), so they cannot disagree about a port.
#pragma once

#include <cstdint>
#include <string_view>

#include "collector/model/snapshot.h"

namespace rdmatop {

/// Driver family a row applies to. Named after the RDMA drivers; rows read from a netdev
/// (ethtool, statistics) use the family of its Ethernet driver (mlx5_core -> mlx5,
/// bnxt_en -> bnxt_re, ice -> irdma).
enum class DriverFamily : std::uint8_t { any, mlx5, bnxt_re, irdma, rxe };

/// The families the rows of one port are chosen by.
struct DriverFamilies {
  DriverFamily rdma;    ///< rows read from the RDMA device (hw_counters, PMA counters)
  DriverFamily netdev;  ///< rows read from its netdev (ethtool, statistics)
};

/// The families of a port of an RDMA device with driver `rdma_driver` ("mlx5", "bnxt_re",
/// "irdma", "rxe"; "" when it could not be named) and netdev `netdev` (nullptr when the port
/// has none or it was not collected). `any` where no family is known.
DriverFamilies driver_families(std::string_view rdma_driver, const NetdevSample* netdev);

const char* to_string(DriverFamily family);

}  // namespace rdmatop
