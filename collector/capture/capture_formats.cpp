#include "collector/capture/capture_formats.h"

namespace rdmatop::capture {

const std::vector<FormatParser>& formats() {
  static const std::vector<FormatParser> all = {
      ttar_format(),
      sysfs_values_format(),
      ethtool_info_format(),
      ethtool_pause_format(),
      rdma_statistic_format(),
      rdma_link_format(),
      rdma_dev_format(),
      ibstat_format(),
      ibv_devinfo_format(),
      ibdev2netdev_format(),
      ip_link_format(),
      ls_links_format(),
      show_gids_format(),
      dcb_format(),
      ethtool_stats_format(),
      // iproute2 rdma JSON, resources, QP counter mode; devlink (issue #16)
      rdma_statistic_json_format(),
      rdma_resource_format(),
      rdma_res_objects_format(),
      rdma_qp_mode_format(),
      rdma_qp_counters_format(),
      devlink_info_format(),
      devlink_health_format(),
      mlnx_qos_format(),
      perfquery_format(),
      lldptool_format(),
      ethtool_tunable_format(),
      proc_interrupts_format(),
  };
  return all;
}

const FormatParser* find_format(std::string_view name) {
  for (const FormatParser& f : formats()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace rdmatop::capture
