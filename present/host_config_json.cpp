#include "present/host_config_json.h"

#include "present/json_util.h"

namespace rdmatop {
namespace {

using ojson = nlohmann::ordered_json;

ojson string_map(const std::map<std::string, std::string, std::less<>>& map) {
  ojson out = ojson::object();
  for (const auto& [k, v] : map) out[k] = v;
  return out;
}

ojson object_counts(const std::map<std::string, std::uint32_t, std::less<>>& map) {
  ojson out = ojson::object();
  for (const auto& [k, v] : map) out[k] = v;
  return out;
}

}  // namespace

ojson devlink_json(const std::optional<DevlinkInfo>& info) {
  if (!info) return nullptr;
  ojson reporters = ojson::array();
  for (const auto& r : info->reporters) {
    reporters.push_back({{"name", r.name},
                         {"state", r.state},
                         {"error_count", optional_json(r.error_count)},
                         {"recover_count", optional_json(r.recover_count)},
                         {"last_dump_ts_ms", optional_json(r.last_dump_ts_ms)},
                         {"grace_period_ms", optional_json(r.grace_period_ms)},
                         {"auto_recover", optional_json(r.auto_recover)},
                         {"auto_dump", optional_json(r.auto_dump)}});
  }
  return {{"bus_name", info->bus_name},
          {"dev_name", info->dev_name},
          {"driver", info->driver},
          {"serial_number", info->serial_number},
          {"board_serial_number", info->board_serial_number},
          {"fixed", string_map(info->fixed)},
          {"running", string_map(info->running)},
          {"stored", string_map(info->stored)},
          {"reporters", std::move(reporters)}};
}

ojson dcb_json(const std::optional<DcbInfo>& dcb) {
  if (!dcb) return nullptr;
  ojson app = ojson::array();
  for (const auto& a : dcb->app) {
    app.push_back({{"selector", a.selector}, {"protocol", a.protocol}, {"priority", a.priority}});
  }
  return {{"pfc_enabled", optional_json(dcb->pfc_enabled)},
          {"pfc_cap", optional_json(dcb->pfc_cap)},
          {"pfc_delay", optional_json(dcb->pfc_delay)},
          {"pfc_requests", dcb->pfc_requests},
          {"pfc_indications", dcb->pfc_indications},
          {"ets_prio_tc", dcb->ets_prio_tc},
          {"ets_tc_bw", dcb->ets_tc_bw},
          {"ets_tc_tsa", dcb->ets_tc_tsa},
          {"app", std::move(app)},
          {"trust", dcb->trust}};
}

ojson irqs_json(const std::vector<IrqSample>& irqs) {
  ojson out = ojson::array();
  for (const auto& i : irqs) out.push_back({{"irq", i.irq}, {"name", i.name}, {"count", i.count}});
  return out;
}

ojson rdma_process_json(const RdmaProcess& p) {
  return {{"pid", p.pid},
          {"comm", p.comm},
          {"qps", object_counts(p.qps)},
          {"cqs", object_counts(p.cqs)},
          {"mrs", object_counts(p.mrs)},
          {"pds", object_counts(p.pds)},
          {"pinned_bytes", optional_json(p.pinned_bytes)},
          {"cap_ipc_lock", optional_json(p.cap_ipc_lock)},
          {"memlock_soft_bytes", optional_json(p.memlock_soft_bytes)},
          {"memlock_unlimited", p.memlock_unlimited},
          {"cpu_numa_nodes", p.cpu_numa_nodes}};
}

}  // namespace rdmatop
