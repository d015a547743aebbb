// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Ranks, their coordinates and their process groups, exactly as Megatron-Core builds them
/// (`parallel_state.py`, default order `tp-cp-ep-dp-pp`; the leftmost dimension varies fastest).
///
/// Two grids share the ranks. The dense grid has the sizes (TP, CP, 1, DP, PP); the expert grid
/// (ETP, 1, EP, EDP, PP). A rank's coordinates follow from mixed-radix digits:
///
/// ```text
/// dense:  rank = tp  + TP ·(cp + CP ·(dp  + DP ·pp))
/// expert: rank = etp + ETP·(ep + EP ·(edp + EDP·pp))
/// ```
///
/// A group is all ranks that share every coordinate but the group's own ("masked") ones. Members
/// are listed in ascending rank order, the masked coordinates counting fastest in the order's
/// order; groups of one kind are numbered the same way by their other coordinates — Megatron's
/// enumeration, so a group's index is stable and the same on every rank.
///
/// ```cpp
/// const aicb::process_grid grid(job);
/// const aicb::rank_group dp = grid.group(aicb::group_kind::dp, 5);
/// for (std::uint64_t j = 0; j < dp.size(); ++j) use(dp.member(j));   // global ranks, ascending
/// ```
///
/// A group is a handful of integers (a base rank and up to three size/stride pairs), not a list: a
/// data-parallel group of a million ranks costs nothing until its members are asked for.

#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/options.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The process groups of a Megatron-Core training job.
enum class group_kind : std::uint8_t {
  tp,                  ///< tensor parallel (dense grid 'tp')
  cp,                  ///< context parallel ('cp')
  dp,                  ///< data parallel ('dp')
  pp,                  ///< pipeline parallel ('pp')
  dp_cp,               ///< data × context parallel ('dp-cp'): dense gradients, optimizer shards
  tp_cp,               ///< tensor × context parallel ('tp-cp')
  tp_dp_cp,            ///< tensor × data × context parallel ('tp-dp-cp'): router expert-bias reduction
  ep,                  ///< expert parallel (expert grid 'ep')
  etp,                 ///< expert tensor parallel (expert grid 'tp')
  etp_ep,              ///< expert tensor × expert parallel (expert grid 'tp-ep'): the allgather dispatcher
  edp,                 ///< expert data parallel (expert grid 'dp'): routed-expert gradients
  embedding,           ///< first and last rank of each pipeline group: the tied word-embedding gradient
  position_embedding,  ///< first rank of each pipeline group
  world,               ///< every rank
};

template <>
struct enum_names<group_kind> {
  static constexpr std::array<std::string_view, 14> value{"tp",
                                                          "cp",
                                                          "dp",
                                                          "pp",
                                                          "dp_cp",
                                                          "tp_cp",
                                                          "tp_dp_cp",
                                                          "ep",
                                                          "etp",
                                                          "etp_ep",
                                                          "edp",
                                                          "embedding",
                                                          "position_embedding",
                                                          "world"};
};

/// A rank's place in both grids.
struct rank_coordinates {
  std::uint64_t tp = 0, cp = 0, dp = 0, pp = 0;  ///< dense grid
  std::uint64_t etp = 0, ep = 0, edp = 0;        ///< expert grid (its pp is the dense one)

  [[nodiscard]] friend constexpr bool operator==(const rank_coordinates&, const rank_coordinates&) = default;
};

/// A stable name for a group: its kind and its index among the groups of that kind.
struct group_id {
  group_kind kind = group_kind::world;
  std::uint64_t index = 0;

  [[nodiscard]] friend constexpr bool operator==(const group_id&, const group_id&) = default;
  [[nodiscard]] friend constexpr auto operator<=>(const group_id&, const group_id&) = default;
};

/// "dp_cp[3]": a group id as text.
[[nodiscard]] inline std::string to_string(const group_id& id) {
  return std::string(to_string(id.kind)) + "[" + std::to_string(id.index) + "]";
}

/// One process group: its members as global ranks in ascending order, computed on demand.
class rank_group {
 public:
  /// One dimension of the members: `size` coordinates, `stride` ranks apart.
  struct dimension {
    std::uint64_t size = 1, stride = 0;

    [[nodiscard]] friend constexpr bool operator==(const dimension&, const dimension&) = default;
  };

  constexpr rank_group() = default;
  constexpr rank_group(group_id id, std::uint64_t base, std::array<dimension, 3> dims) noexcept
      : id_(id), base_(base), dims_(dims) {}

  [[nodiscard]] constexpr group_id id() const noexcept { return id_; }
  [[nodiscard]] constexpr group_kind kind() const noexcept { return id_.kind; }
  /// Ranks in the group.
  [[nodiscard]] constexpr std::uint64_t size() const noexcept {
    return dims_[0].size * dims_[1].size * dims_[2].size;
  }
  /// The global rank of group rank `j` (0-based, below size()).
  [[nodiscard]] constexpr std::uint64_t member(std::uint64_t j) const noexcept {
    std::uint64_t rank = base_;
    for (const dimension& d : dims_) {
      rank += (j % d.size) * d.stride;
      j /= d.size;
    }
    return rank;
  }
  /// The group rank of global rank `rank`, or nothing when it is not a member.
  [[nodiscard]] constexpr std::optional<std::uint64_t> position(std::uint64_t rank) const noexcept {
    if (rank < base_) return std::nullopt;
    std::uint64_t offset = rank - base_, j = 0;
    // Dimensions are nested (each stride a multiple of the previous extent) in every group built
    // here; peel them from the largest stride down.
    for (std::size_t k = dims_.size(); k-- > 0;) {
      const dimension& d = dims_[k];
      if (d.size == 1) continue;
      const std::uint64_t digit = offset / d.stride;
      if (digit >= d.size) return std::nullopt;
      offset -= digit * d.stride;
      std::uint64_t below = 1;
      for (std::size_t i = 0; i < k; ++i)
        below *= dims_[i].size;
      j += digit * below;
    }
    if (offset != 0) return std::nullopt;
    return j;
  }
  [[nodiscard]] constexpr bool contains(std::uint64_t rank) const noexcept {
    return position(rank).has_value();
  }
  /// The first member (the lowest rank).
  [[nodiscard]] constexpr std::uint64_t first() const noexcept { return base_; }
  /// The last member (the highest rank).
  [[nodiscard]] constexpr std::uint64_t last() const noexcept { return member(size() - 1); }

  [[nodiscard]] friend constexpr bool operator==(const rank_group&, const rank_group&) = default;

 private:
  group_id id_{};
  std::uint64_t base_ = 0;
  std::array<dimension, 3> dims_{};
};

/// The ranks of a job and their groups. Built from a valid job (validate() runs first).
class process_grid {
 public:
  explicit process_grid(const job_spec& job) {
    validate(job);
    const parallel_spec& p = job.parallel;
    world_ = p.world_size;
    dense_ = {p.tensor_parallel, p.context_parallel, 1, data_parallel(job), p.pipeline_parallel};
    expert_ = {expert_tensor_parallel(job), 1, p.expert_parallel, expert_data_parallel(job),
               p.pipeline_parallel};
    for (const auto* sizes : {&dense_, &expert_}) {
      std::uint64_t product = 1;
      for (const std::uint64_t s : *sizes)
        product *= s;
      if (product != world_)
        AICB_THROW(config_error("world_size", std::to_string(world_),
                                "the expert grid (ETP x EP x EDP x PP) must hold every rank"));
    }
  }

  [[nodiscard]] std::uint64_t world_size() const noexcept { return world_; }
  [[nodiscard]] std::uint64_t pipeline_parallel() const noexcept { return dense_[pp_axis]; }

  /// The coordinates of `rank` in both grids.
  [[nodiscard]] rank_coordinates coordinates(std::uint64_t rank) const {
    check_rank(rank);
    const auto d = digits(dense_, rank), e = digits(expert_, rank);
    return {d[0], d[1], d[3], d[4], e[0], e[2], e[3]};
  }
  /// The pipeline stage of `rank`.
  [[nodiscard]] std::uint64_t pipeline_stage(std::uint64_t rank) const { return coordinates(rank).pp; }

  /// The group of `kind` that holds `rank`.
  [[nodiscard]] rank_group group(group_kind kind, std::uint64_t rank) const {
    check_rank(rank);
    switch (kind) {
      case group_kind::tp:
        return masked(kind, dense_, rank, {0});
      case group_kind::cp:
        return masked(kind, dense_, rank, {1});
      case group_kind::dp:
        return masked(kind, dense_, rank, {3});
      case group_kind::pp:
        return masked(kind, dense_, rank, {4});
      case group_kind::dp_cp:
        return masked(kind, dense_, rank, {1, 3});
      case group_kind::tp_cp:
        return masked(kind, dense_, rank, {0, 1});
      case group_kind::tp_dp_cp:
        return masked(kind, dense_, rank, {0, 1, 3});
      case group_kind::ep:
        return masked(kind, expert_, rank, {2});
      case group_kind::etp:
        return masked(kind, expert_, rank, {0});
      case group_kind::etp_ep:
        return masked(kind, expert_, rank, {0, 2});
      case group_kind::edp:
        return masked(kind, expert_, rank, {3});
      case group_kind::embedding:
      case group_kind::position_embedding: {
        // The first (and, for the word embedding, the last) rank of the rank's pipeline group.
        const rank_group pp = masked(group_kind::pp, dense_, rank, {4});
        const std::uint64_t stages = dense_[pp_axis];
        const bool both = kind == group_kind::embedding && stages > 1;
        return {{kind, pp.id().index},
                pp.first(),
                {{{both ? 2u : 1u, (stages - 1) * (world_ / stages)}, {}, {}}}};
      }
      case group_kind::world:
        return {{kind, 0}, 0, {{{world_, 1}, {}, {}}}};
    }
    AICB_THROW(config_error("group", std::to_string(static_cast<int>(kind)), "no such group kind"));
  }

  /// Whether `rank` belongs to a group of `kind` at all (only the embedding groups leave ranks out).
  [[nodiscard]] bool in_group(group_kind kind, std::uint64_t rank) const {
    return group(kind, rank).contains(rank);
  }

  /// How many groups of `kind` there are.
  [[nodiscard]] std::uint64_t group_count(group_kind kind) const {
    if (kind == group_kind::world) return 1;
    if (kind == group_kind::embedding || kind == group_kind::position_embedding)
      return world_ / dense_[pp_axis];
    return world_ / group(kind, 0).size();
  }

  /// The group of `kind` with Megatron's enumeration index `index`.
  [[nodiscard]] rank_group group_at(group_kind kind, std::uint64_t index) const {
    if (index >= group_count(kind))
      AICB_THROW(config_error(
          "group", to_string(group_id{kind, index}),
          "the index must be below the number of groups (" + std::to_string(group_count(kind)) + ")"));
    // The lowest rank of group `index`: its unmasked coordinates are the index's digits. Find it
    // through a member of group 0 shifted by the index's place in the unmasked dimensions.
    const rank_group zero = group(kind, 0);
    if (kind == group_kind::world) return zero;
    std::uint64_t remaining = index, rank = 0;
    const bool expert = kind == group_kind::ep || kind == group_kind::etp || kind == group_kind::etp_ep ||
                        kind == group_kind::edp;
    const auto& sizes = expert ? expert_ : dense_;
    const std::uint64_t mask = kind == group_kind::embedding || kind == group_kind::position_embedding
                                   ? mask_of(group_kind::pp)
                                   : mask_of(kind);
    std::uint64_t stride = 1;
    for (std::size_t axis = 0; axis < sizes.size(); ++axis) {
      if (!(mask & (1u << axis))) {
        rank += (remaining % sizes[axis]) * stride;
        remaining /= sizes[axis];
      }
      stride *= sizes[axis];
    }
    return group(kind, rank);
  }

  /// The pipeline neighbour of `rank` one stage on (`next`) or back, wrapping around (Megatron's
  /// ranks[(i ± 1) mod PP]).
  [[nodiscard]] std::uint64_t pipeline_peer(std::uint64_t rank, bool next) const {
    const rank_group pp = group(group_kind::pp, rank);
    const std::uint64_t stages = pp.size(), stage = *pp.position(rank);
    return pp.member(next ? (stage + 1) % stages : (stage + stages - 1) % stages);
  }

 private:
  // Axes of both grids, in the order string's order.
  static constexpr std::size_t pp_axis = 4;
  using sizes_t = std::array<std::uint64_t, 5>;

  static std::uint64_t mask_of(group_kind kind) {
    switch (kind) {
      case group_kind::tp:
      case group_kind::etp:
        return 1u << 0;
      case group_kind::cp:
        return 1u << 1;
      case group_kind::ep:
        return 1u << 2;
      case group_kind::dp:
      case group_kind::edp:
        return 1u << 3;
      case group_kind::pp:
        return 1u << 4;
      case group_kind::dp_cp:
        return (1u << 1) | (1u << 3);
      case group_kind::tp_cp:
        return (1u << 0) | (1u << 1);
      case group_kind::tp_dp_cp:
        return (1u << 0) | (1u << 1) | (1u << 3);
      case group_kind::etp_ep:
        return (1u << 0) | (1u << 2);
      default:
        return 0;
    }
  }

  void check_rank(std::uint64_t rank) const {
    if (rank >= world_)
      AICB_THROW(config_error("rank", std::to_string(rank),
                              "a rank must be below world_size (" + std::to_string(world_) + ")"));
  }

  static std::array<std::uint64_t, 5> digits(const sizes_t& sizes, std::uint64_t rank) {
    std::array<std::uint64_t, 5> d{};
    for (std::size_t axis = 0; axis < sizes.size(); ++axis) {
      d[axis] = rank % sizes[axis];
      rank /= sizes[axis];
    }
    return d;
  }

  // The group whose members differ from `rank` only in the axes listed (in the order's order).
  rank_group masked(group_kind kind, const sizes_t& sizes, std::uint64_t rank,
                    std::initializer_list<std::size_t> axes) const {
    const auto coordinate = digits(sizes, rank);
    std::array<std::uint64_t, 5> strides{};
    std::uint64_t stride = 1;
    for (std::size_t axis = 0; axis < sizes.size(); ++axis) {
      strides[axis] = stride;
      stride *= sizes[axis];
    }
    std::uint64_t base = rank, index = 0, scale = 1;
    std::array<rank_group::dimension, 3> dims{};
    std::size_t used = 0;
    for (std::size_t axis = 0; axis < sizes.size(); ++axis) {
      bool is_masked = false;
      for (const std::size_t a : axes)
        is_masked = is_masked || a == axis;
      if (is_masked) {
        base -= coordinate[axis] * strides[axis];
        dims[used++] = {sizes[axis], strides[axis]};
      } else {
        index += coordinate[axis] * scale;
        scale *= sizes[axis];
      }
    }
    return {{kind, index}, base, dims};
  }

  std::uint64_t world_ = 1;
  sizes_t dense_{}, expert_{};
};

/// The groups that reduce gradients and gather weights over data parallelism: dense (DP, DP × CP)
/// and, with `experts`, the routed experts' expert-DP.
[[nodiscard]] constexpr bool is_data_parallel(group_kind k, bool experts = true) noexcept {
  return k == group_kind::dp || k == group_kind::dp_cp || (experts && k == group_kind::edp);
}

/// The first rank of pipeline stage `stage` (PP is the outermost dimension: stages are consecutive
/// blocks of world_size / pipeline_parallel ranks). The rank a projection represents a stage by.
[[nodiscard]] constexpr std::uint64_t first_rank_of_stage(const job_spec& job, std::uint64_t stage) noexcept {
  return stage * (job.parallel.world_size / job.parallel.pipeline_parallel);
}

/// The ranks a list names, in the order given: "all", or comma-separated ranks and inclusive ranges
/// ("0-7,12,56-63"), each below `world_size`, none twice, at most `most` of them (the list is held in
/// memory: 2^24 ranks are 128 MiB). Errors name the list and the rule.
[[nodiscard]] inline std::vector<std::uint64_t> parse_ranks(std::string_view text, std::uint64_t world_size,
                                                            std::uint64_t most = std::uint64_t{1} << 24) {
  const auto refuse = [&](const std::string& rule) {
    AICB_THROW(config_error("ranks", std::string(text), rule));
  };
  const auto too_many = [&](std::uint64_t count) {
    refuse("names " + std::to_string(count) + " ranks; at most " + std::to_string(most) +
           " can be chosen here");
  };
  std::vector<std::uint64_t> ranks;
  if (text == "all") {
    if (world_size > most) too_many(world_size);
    ranks.resize(world_size);
    for (std::uint64_t r = 0; r < world_size; ++r)
      ranks[r] = r;
    return ranks;
  }
  const auto number = [&](std::string_view digits) {
    std::uint64_t n = 0;
    if (digits.empty()) refuse("expected ranks and ranges like 0-7,12 (or all)");
    for (const char c : digits) {
      if (c < '0' || c > '9') refuse("expected ranks and ranges like 0-7,12 (or all)");
      if (n > (world_size - 1) / 10 + 1)
        refuse("every rank must be below world_size (" + std::to_string(world_size) + ")");
      n = n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (n >= world_size) refuse("every rank must be below world_size (" + std::to_string(world_size) + ")");
    return n;
  };
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::size_t dash = item.find('-');
    const std::uint64_t first = number(item.substr(0, dash));
    const std::uint64_t last = dash == std::string_view::npos ? first : number(item.substr(dash + 1));
    if (last < first) refuse("a range must not run backwards");
    if (last - first >= world_size - ranks.size()) refuse("a rank is listed twice");  // more than there are
    if (last - first >= most - std::min<std::uint64_t>(most, ranks.size()))
      too_many(ranks.size() + (last - first) + 1);
    for (std::uint64_t r = first; r <= last; ++r)
      ranks.push_back(r);
    start = comma + 1;
  }
  std::vector<std::uint64_t> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end()) refuse("rank " + std::to_string(*twice) + " is listed twice");
  return ranks;
}

AICB_END_NAMESPACE
