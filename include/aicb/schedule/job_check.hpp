// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The whole-job consistency check: across the ranks of a job, every send has its receive (same
/// peer pair, tag and size), every collective is entered by exactly its group's members in the same
/// order with the same kind and size, and a joint execution that respects each rank's order and
/// NCCL's blocking semantics finishes — no deadlock, nothing left unmatched.
///
/// ```cpp
/// const aicb::job_check r = aicb::check_job(job);
/// if (!r.ok) std::puts(r.problem.c_str());   // names the rank, the operation and its counterpart
/// std::puts(r.proved.c_str());               // what the check established, and how
/// ```
///
/// How it scales: a joint execution of every rank holds one pipeline step of each rank in memory,
/// which is fine for small jobs. For large ones the check runs in two passes: (1) every rank's
/// stream is generated and reduced to a signature that leaves out group indices, peers and tags —
/// ranks of the same pipeline stage must have equal signatures (the job is symmetric); (2) the
/// ranks of one pipeline group (one rank per stage; with context parallelism, the pipeline groups of
/// one context-parallel ring, which exchange keys and values) run jointly, with real matching of their
/// point-to-point transfers and of collectives among them (the tied-embedding group spans the first
/// and last stage), while a collective whose other members lie outside the group completes at once:
/// those members run the same operations (pass 1) on isomorphic pipeline groups, so they reach it
/// in the same state. The result says which of the two was done.

#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/job.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/version.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// What check_job found.
struct job_check {
  bool ok = true;
  std::string problem;               ///< the first inconsistency: rank, operation, counterpart
  std::string proved;                ///< what was established, and how
  std::uint64_t ranks_streamed = 0;  ///< ranks whose whole stream was generated
  std::uint64_t ranks_run = 0;       ///< ranks run jointly
  std::uint64_t operations = 0;      ///< operations of the joint run
  std::uint64_t transfers = 0;       ///< point-to-point transfers matched (send and receive)
  std::uint64_t collectives = 0;     ///< collective calls completed (one per member)
};

/// How check_job works.
struct job_check_options {
  /// Run every rank jointly up to this world size; above it, the two passes of the file comment.
  std::uint64_t joint_world_limit = 256;
  /// The most ranks pass 1 streams (about 10,000 a second): a larger world is refused before any
  /// work, with the time it would take, rather than run for hours in silence.
  std::uint64_t stream_limit = std::uint64_t{1} << 20;
  /// Called now and then during pass 1 with the ranks streamed and the world (a long check says
  /// how far it is).
  std::function<void(std::uint64_t, std::uint64_t)> progress{};
};

namespace detail {

// "rank 9 (stage 1) op 486 attention_input_regather (all_gather on tp[4], 33554432 bytes)"
inline std::string describe_op(std::uint64_t rank, const operation& op) {
  std::string text =
      "rank " + std::to_string(rank) + " op " + std::to_string(op.index) + " " + std::string(op.name);
  if (op.type == op_type::collective)
    text += " (" + std::string(to_string(op.kind)) + " on " + to_string(op.group) + ", " +
            std::to_string(op.size.count()) + " bytes)";
  else if (op.type != op_type::compute)
    text += std::string(op.type == op_type::send ? " (send to rank " : " (receive from rank ") +
            std::to_string(op.peer) + ", tag " + std::to_string(op.tag) + ", " +
            std::to_string(op.size.count()) + " bytes)";
  if (op.layer != no_layer) text += " of layer " + std::to_string(op.layer);
  text += ", micro batch " + std::to_string(op.microbatch);
  return text;
}

}  // namespace detail

/// Runs the operation streams of `ranks` jointly (`stream(rank)` gives a range of operations; it is
/// called once per rank and the range must outlive the call). Each rank runs its operations in
/// order; an operation starts once those it waits for (`after`) are complete. A collective blocks
/// until every member of its group that is among `ranks` has entered it — members outside count as
/// entered (the caller vouches for their symmetry). Consecutive sends and receives that wait for the
/// same operations form one call, posted together, as NCCL's grouped calls are; a posted transfer
/// completes once its other end is posted, and only what waits for it is held up.
template <class Streams>
[[nodiscard]] job_check run_jointly(const process_grid& grid, const std::vector<std::uint64_t>& ranks,
                                    Streams&& stream) {
  using range_t = std::remove_cvref_t<decltype(stream(std::uint64_t{}))>;
  struct runner {
    std::uint64_t rank = 0;
    range_t range;
    decltype(std::begin(std::declval<range_t&>())) at{};
    // Point-to-point operations posted and not yet complete: (index, transfer key).
    std::vector<std::pair<std::uint64_t, std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>>> pending;
    std::vector<operation> call;
    bool posted = false;  // the collective at `at` is entered and waiting
    bool done = false;
  };
  job_check result;
  const auto fail = [&](std::string problem) {
    result.ok = false;
    result.problem = std::move(problem);
    return result;
  };
  std::vector<runner> runners;
  runners.reserve(ranks.size());
  std::map<std::uint64_t, std::size_t> slot;  // rank -> runner
  for (const std::uint64_t r : ranks) {
    slot[r] = runners.size();
    runners.push_back({r, stream(r), {}, {}, {}, false, false});
  }
  for (runner& x : runners) {
    x.at = std::begin(x.range);
    x.done = x.at == std::end(x.range);
  }

  // Point-to-point: (from, to, tag) -> what each end posted.
  struct transfer {
    bool sent = false, received = false;
    std::uint64_t sent_size = 0, received_size = 0;
    int completed = 0;
    std::string sender, receiver;  // for messages
  };
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>, transfer> transfers;
  // Collectives: per group, the calls in order; each call counts its members in.
  struct entry {
    collective kind = collective::none;
    std::uint64_t size = 0;
    std::uint64_t entered = 0, needed = 0, left = 0;
    std::string first;  // the first member's operation, for messages
  };
  struct group_calls {
    std::vector<entry> calls;
    std::uint64_t base = 0;                                 // index of calls[0]
    std::unordered_map<std::uint64_t, std::uint64_t> next;  // per member: its next call's index
  };
  std::map<group_id, group_calls> groups;
  const auto members_here = [&](const group_id& id) {
    const rank_group g = grid.group_at(id.kind, id.index);
    std::uint64_t n = 0;
    for (const auto& [r, i] : slot)
      n += g.contains(r) ? 1 : 0;
    return n;
  };
  const auto p2p_key = [](std::uint64_t rank, const operation& op) {
    return op.type == op_type::send ? std::tuple{rank, op.peer, op.tag} : std::tuple{op.peer, rank, op.tag};
  };

  for (bool progress = true; progress;) {
    progress = false;
    for (runner& x : runners) {
      while (!x.done || !x.pending.empty()) {
        // Retire the posted transfers whose other end is posted too.
        for (std::size_t i = 0; i < x.pending.size();) {
          const auto it = transfers.find(x.pending[i].second);
          if (it == transfers.end() || !(it->second.sent && it->second.received)) {
            ++i;
            continue;
          }
          if (++it->second.completed == 2) {
            transfers.erase(it);
            ++result.transfers;
          }
          ++result.operations;
          x.pending.erase(x.pending.begin() + static_cast<std::ptrdiff_t>(i));
          progress = true;
        }
        if (x.done) break;  // only transfers left to complete
        // An operation runs once everything it waits for is complete.
        bool blocked = false;
        for (std::uint8_t i = 0; i < x.at->after_count && !blocked; ++i)
          for (const auto& [index, key] : x.pending)
            blocked = blocked || index == x.at->after[i];
        if (blocked) break;
        const operation& op = *x.at;
        if (op.type == op_type::compute) {
          ++result.operations;
          ++x.at;
          x.done = x.at == std::end(x.range);
          progress = true;
          continue;
        }
        if (op.type == op_type::collective) {
          const rank_group g = grid.group_at(op.group.kind, op.group.index);
          if (!g.contains(x.rank))
            return fail(detail::describe_op(x.rank, op) + ": the rank is not a member of " +
                        to_string(op.group));
          group_calls& gc = groups[op.group];
          if (!x.posted) {
            std::uint64_t& mine = gc.next[x.rank];
            if (mine < gc.base) return fail(detail::describe_op(x.rank, op) + ": internal order error");
            while (gc.calls.size() <= mine - gc.base)
              gc.calls.push_back({op.kind, op.size.count(), 0, members_here(op.group), 0, {}});
            entry& e = gc.calls[mine - gc.base];
            if (e.entered == 0) {
              e.kind = op.kind;
              e.size = op.size.count();
              e.first = detail::describe_op(x.rank, op);
            } else if (e.kind != op.kind || e.size != op.size.count()) {
              return fail(detail::describe_op(x.rank, op) + " does not match its group's call number " +
                          std::to_string(mine) + " on " + to_string(op.group) + ": " + e.first);
            }
            ++e.entered;
            x.posted = true;
            progress = true;
          }
          const std::uint64_t mine = gc.next[x.rank];
          entry& e = gc.calls[mine - gc.base];
          if (e.entered < e.needed) break;  // waits for the other members
          ++result.collectives;
          ++result.operations;
          ++e.left;
          ++gc.next[x.rank];
          while (!gc.calls.empty() && gc.calls.front().left == gc.calls.front().needed) {
            gc.calls.erase(gc.calls.begin());
            ++gc.base;
          }
          x.posted = false;
          ++x.at;
          x.done = x.at == std::end(x.range);
          progress = true;
          continue;
        }
        // Sends and receives: the run of them that waits for the same operations is one call.
        x.call.clear();
        while (x.at != std::end(x.range) && (x.at->type == op_type::send || x.at->type == op_type::recv) &&
               (x.call.empty() ||
                (x.at->after == x.call.front().after && x.at->after_count == x.call.front().after_count))) {
          x.call.push_back(*x.at);
          ++x.at;
        }
        for (const operation& p : x.call) {
          if (p.peer >= grid.world_size())
            return fail(detail::describe_op(x.rank, p) + ": no rank " + std::to_string(p.peer));
          // A transfer needs both ends among the ranks run: only collectives are vouched for.
          if (!slot.count(p.peer))
            return fail(detail::describe_op(x.rank, p) + ": its peer is not among the ranks run jointly");
          transfer& t = transfers[p2p_key(x.rank, p)];
          bool& side = p.type == op_type::send ? t.sent : t.received;
          if (side)
            return fail(detail::describe_op(x.rank, p) + ": a second " +
                        (p.type == op_type::send ? "send" : "receive") + " with the same peer and tag");
          side = true;
          (p.type == op_type::send ? t.sent_size : t.received_size) = p.size.count();
          (p.type == op_type::send ? t.sender : t.receiver) = detail::describe_op(x.rank, p);
          if (t.sent && t.received && t.sent_size != t.received_size)
            return fail(t.receiver + " expects " + std::to_string(t.received_size) + " bytes, but " +
                        t.sender + " sends " + std::to_string(t.sent_size));
        }
        for (const operation& p : x.call)
          x.pending.emplace_back(p.index, p2p_key(x.rank, p));
        x.done = x.at == std::end(x.range);
        progress = true;
      }
    }
  }
  result.ranks_run = runners.size();
  for (runner& x : runners) {
    for (const auto& [index, key] : x.pending) {
      const auto it = transfers.find(key);
      if (it == transfers.end()) continue;
      const transfer& t = it->second;
      const bool sending = std::get<0>(key) == x.rank;
      return fail("deadlock: " + (sending ? t.sender : t.receiver) + " waits for rank " +
                  std::to_string(sending ? std::get<1>(key) : std::get<0>(key)) + ", which never posts the " +
                  (sending ? "receive" : "send") + " of tag " + std::to_string(std::get<2>(key)) +
                  " before it waits itself");
    }
    if (!x.done)
      return fail("deadlock: " + detail::describe_op(x.rank, *x.at) + " waits for the other members of " +
                  to_string(x.at->group) + ", who never enter it");
  }
  if (!transfers.empty()) {
    const transfer& t = transfers.begin()->second;
    return fail("unmatched: " + (t.sent ? t.sender + " is never received" : t.receiver + " is never sent"));
  }
  for (const auto& [id, gc] : groups)
    for (const entry& e : gc.calls)
      if (e.entered != e.needed)
        return fail("unmatched: " + e.first + " is entered by " + std::to_string(e.entered) + " of the " +
                    std::to_string(e.needed) + " members run");
  return result;
}

namespace detail {

// A signature of a rank's stream that ranks of a symmetric job share: everything but group
// indices, peers and tags, mixed word by word. Names are the schedule's static texts: their address
// stands for them within one process.
struct stream_signature {
  std::uint64_t hash = 0x243F6A8885A308D3ULL, operations = 0;
  void mix(std::uint64_t v) {
    hash = (hash ^ v) * 0x9E3779B97F4A7C15ULL;
    hash ^= hash >> 29;
  }
  void add(const operation& op) {
    ++operations;
    mix(static_cast<std::uint64_t>(op.type));
    mix(reinterpret_cast<std::uintptr_t>(op.name.data()));
    mix(op.name.size());
    mix(static_cast<std::uint64_t>(op.phase));
    mix(op.microbatch);
    mix(op.chunk);
    mix(op.layer);
    mix(static_cast<std::uint64_t>(op.kind));
    mix(static_cast<std::uint64_t>(op.group.kind));
    mix(op.group_size);
    mix(op.size.count());
    const double flops = op.compute.flops();
    std::uint64_t bits = 0;
    std::memcpy(&bits, &flops, sizeof bits);
    mix(bits);
  }
};

}  // namespace detail

/// Checks a job: see the file comment. (A template only so that the joint run is compiled where a
/// program calls this, not in every translation unit that includes the header.)
template <class = void>
[[nodiscard]] job_check check_job(const job_spec& job, rank_schedule_options schedule = {},
                                  job_check_options options = {}) {
  const process_grid grid(job);
  const std::uint64_t world = grid.world_size();
  const auto streams = [&](std::uint64_t rank) { return rank_schedule(job, rank, schedule); };
  if (world <= options.joint_world_limit) {
    std::vector<std::uint64_t> all(world);
    for (std::uint64_t r = 0; r < world; ++r)
      all[r] = r;
    job_check r = run_jointly(grid, all, streams);
    r.ranks_streamed = world;
    if (r.ok)
      r.proved = "all " + std::to_string(world) +
                 " ranks ran jointly: every transfer matched, every collective "
                 "entered by all its members in the same order with the same size, no deadlock";
    return r;
  }
  if (world > options.stream_limit)
    AICB_THROW(config_error("world_size", std::to_string(world),
                            "checking streams every rank, about 10,000 a second: " + std::to_string(world) +
                                " ranks would take about " + std::to_string(world / 10'000 / 3600 + 1) +
                                " hour(s); the limit is " + std::to_string(options.stream_limit) +
                                " ranks (raise it to check anyway)"));
  // Pass 1: every rank's signature equals its stage's.
  job_check result;
  std::vector<std::pair<bool, detail::stream_signature>> stage_signature(grid.pipeline_parallel());
  for (std::uint64_t r = 0; r < world; ++r) {
    detail::stream_signature sig;
    for (const operation& op : rank_schedule(job, r, schedule))
      sig.add(op);
    ++result.ranks_streamed;
    if (options.progress && result.ranks_streamed % 65536 == 0)
      options.progress(result.ranks_streamed, world);
    auto& [seen, reference] = stage_signature[grid.pipeline_stage(r)];
    if (!seen) {
      seen = true;
      reference = sig;
    } else if (sig.hash != reference.hash || sig.operations != reference.operations) {
      result.ok = false;
      result.problem = "rank " + std::to_string(r) +
                       " runs other operations than the first rank of its stage " +
                       std::to_string(grid.pipeline_stage(r)) + " (the job is not symmetric)";
      return result;
    }
  }
  // Pass 2: one pipeline group jointly — with context parallelism, the pipeline groups of one
  // context-parallel ring, whose ranks exchange keys and values point to point.
  const rank_group cp = grid.group(group_kind::cp, 0);
  std::vector<std::uint64_t> ranks;
  for (std::uint64_t c = 0; c < cp.size(); ++c) {
    const rank_group pp = grid.group(group_kind::pp, cp.member(c));
    for (std::uint64_t i = 0; i < pp.size(); ++i)
      ranks.push_back(pp.member(i));
  }
  std::sort(ranks.begin(), ranks.end());
  job_check joint = run_jointly(grid, ranks, streams);
  joint.ranks_streamed = result.ranks_streamed;
  if (joint.ok)
    joint.proved =
        "all " + std::to_string(world) +
        " ranks streamed: every rank runs the operations of its "
        "stage's first rank (up to group ids, peers and tags); " +
        (cp.size() > 1 ? "the pipeline groups of context-parallel ring 0 (" : "pipeline group 0 (") +
        std::to_string(ranks.size()) +
        " ranks) ran jointly: every transfer matched, every collective "
        "among them entered in the same order with the same size, no deadlock — the other pipeline "
        "groups run the same operations";
  return joint;
}

/// The check as the document `aicb.check/1` (docs/schemas/check.schema.json): whether the job of
/// `world_size` ranks is consistent, what was proved or the first problem, the counts and the time.
[[nodiscard]] inline std::string job_check_json(const job_check& r, std::uint64_t world_size,
                                                double seconds) {
  json_writer w;
  w.begin_object().member("schema", "aicb.check/1").member("aicb_version", AICB_VERSION_STRING);
  w.member("world_size", world_size).member("ok", r.ok);
  if (r.ok)
    w.member("proved", r.proved);
  else
    w.member("problem", r.problem);
  w.member("ranks_streamed", r.ranks_streamed).member("ranks_run", r.ranks_run);
  w.member("operations", r.operations).member("transfers", r.transfers).member("collectives", r.collectives);
  w.member("seconds", seconds).end_object();
  return w.str() + "\n";
}

AICB_END_NAMESPACE
