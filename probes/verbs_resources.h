// RAII owners for the verbs and rdma_cm objects the RC transport and the RDMA responder hold, and
// the one helper that waits for an rdma_cm event with a deadline. Destruction order matters (QP
// before CQ and MRs, all before the PD, the PD before the cm_id, the cm_id before its channel), so
// `RcResources` declares its members in reverse teardown order and every error path unwinds
// correctly by construction.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "collector/model/result.h"

namespace rdmatop::probes {

struct EventChannelDeleter {
  void operator()(rdma_event_channel* c) const { rdma_destroy_event_channel(c); }
};
struct CmIdDeleter {
  void operator()(rdma_cm_id* id) const {
    if (id->qp != nullptr) rdma_destroy_qp(id);
    rdma_destroy_id(id);
  }
};
struct PdDeleter {
  void operator()(ibv_pd* pd) const { ibv_dealloc_pd(pd); }
};
struct CompChannelDeleter {
  void operator()(ibv_comp_channel* c) const { ibv_destroy_comp_channel(c); }
};
struct CqDeleter {
  void operator()(ibv_cq* cq) const { ibv_destroy_cq(cq); }
};
struct MrDeleter {
  void operator()(ibv_mr* mr) const { ibv_dereg_mr(mr); }
};

using EventChannelPtr = std::unique_ptr<rdma_event_channel, EventChannelDeleter>;
using CmIdPtr = std::unique_ptr<rdma_cm_id, CmIdDeleter>;
using PdPtr = std::unique_ptr<ibv_pd, PdDeleter>;
using CompChannelPtr = std::unique_ptr<ibv_comp_channel, CompChannelDeleter>;
using CqPtr = std::unique_ptr<ibv_cq, CqDeleter>;
using MrPtr = std::unique_ptr<ibv_mr, MrDeleter>;

/// A registered buffer: the bytes and their MR (destroyed before the bytes).
struct RegisteredBuffer {
  std::vector<std::uint8_t> bytes;
  MrPtr mr;

  std::uint64_t addr() const { return reinterpret_cast<std::uintptr_t>(bytes.data()); }
};

/// Everything one RC connection holds. The destructor tears down in the order verbs requires:
/// QP, MRs, CQ (after acknowledging its events), completion channel, PD, then the cm_id.
struct RcResources {
  CmIdPtr id;  ///< owns the QP (rdma_create_qp)
  PdPtr pd;
  CompChannelPtr channel;  ///< null in busy-poll mode
  CqPtr cq;
  std::deque<RegisteredBuffer> buffers;  ///< deque: addresses stay stable as buffers are added
  std::uint64_t registered_bytes = 0;
  unsigned unacked_cq_events = 0;
  /// Bytes a SEND may carry inline (IBV_SEND_INLINE) on this QP; 0 when the device has none.
  std::uint32_t max_inline = 0;

  RcResources() = default;
  RcResources(RcResources&&) = default;
  RcResources& operator=(RcResources&&) = delete;
  ~RcResources();
};

/// Allocates the PD, the CQ (with a completion channel unless busy-polling) and an RC QP on
/// `id`, with `depth` send and receive work requests of one SGE each, and inline sends of small
/// messages where the device allows them (`max_inline`).
std::optional<Error> create_rc_qp(RcResources& res, int depth, bool with_channel);
/// Registers `size` bytes with exactly `access` (0: local read only, for send sources).
Result<RegisteredBuffer*> register_buffer(RcResources& res, std::size_t size, int access);

/// Arms the CQ notification, and after an event acknowledges it and re-arms.
std::optional<Error> arm_cq(RcResources& res);
/// Consumes a pending completion event on the channel (non-blocking fd); true if one was there.
bool take_cq_event(RcResources& res);

struct CmEvent {
  rdma_cm_event_type type{};
  int status = 0;
  rdma_cm_id* id = nullptr;
  rdma_cm_id* listen_id = nullptr;
  std::vector<std::uint8_t> private_data;
};

/// Sets the channel's fd non-blocking so waits can honour deadlines.
std::optional<Error> make_nonblocking(rdma_event_channel* channel);
/// The next event (acknowledged, private data copied), or ETIMEDOUT at the deadline.
Result<CmEvent> next_cm_event(rdma_event_channel* channel,
                              std::chrono::steady_clock::time_point deadline);

}  // namespace rdmatop::probes
