#include "collector/normalize/driver_family.h"

namespace rdmatop {

namespace {

DriverFamily family_of_rdma_driver(std::string_view driver) {
  if (driver == "mlx5" || driver == "mlx5_ib") return DriverFamily::mlx5;
  if (driver == "bnxt_re") return DriverFamily::bnxt_re;
  if (driver == "irdma") return DriverFamily::irdma;
  if (driver == "rxe" || driver == "rdma_rxe") return DriverFamily::rxe;
  return DriverFamily::any;
}

/// The Ethernet driver from ETHTOOL_GDRVINFO (`ethtool -i`).
DriverFamily family_of_netdev_driver(std::string_view driver) {
  if (driver == "mlx5_core") return DriverFamily::mlx5;
  if (driver == "bnxt_en") return DriverFamily::bnxt_re;
  if (driver == "ice") return DriverFamily::irdma;
  return DriverFamily::any;
}

}  // namespace

DriverFamilies driver_families(std::string_view rdma_driver, const NetdevSample* netdev) {
  const DriverFamily device = family_of_rdma_driver(rdma_driver);
  DriverFamily ethernet = device;
  if (ethernet == DriverFamily::any && netdev != nullptr && netdev->driver) {
    ethernet = family_of_netdev_driver(netdev->driver->driver);
  }
  // A device whose own driver could not be named (a renamed "rocep59s0f0", a capture without
  // the driver link) maps like the driver of its netdev (ETHTOOL_GDRVINFO or an `ethtool -i`
  // dump): mlx5_core's RDMA counters are mlx5's. A named driver the table does not map (siw on
  // an mlx5 netdev) stays unmapped.
  return DriverFamilies{rdma_driver.empty() ? ethernet : device, ethernet};
}

const char* to_string(DriverFamily family) {
  switch (family) {
    case DriverFamily::any:
      return "any";
    case DriverFamily::mlx5:
      return "mlx5";
    case DriverFamily::bnxt_re:
      return "bnxt_re";
    case DriverFamily::irdma:
      return "irdma";
    case DriverFamily::rxe:
      return "rxe";
  }
  return "unknown";
}

}  // namespace rdmatop
