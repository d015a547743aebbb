// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Parallel layouts fixed at compile time, as types. A simulator built for one layout names it once,
/// each dimension by its tag, in any order (those not named are 1, or off):
///
/// ```cpp
/// using layout = aicb::parallel_strategy<aicb::tp<8>, aicb::pp<4>, aicb::ep<8>, aicb::sp>;
/// constexpr aicb::job_spec job = layout::job<aicb::presets::mixtral_8x7b, 256>;   // 256 GPUs
/// aicb::rank_schedule schedule(job, 0);
/// ```
///
/// A layout that cannot work is a compile error naming the rule: a dimension given twice or of size 0
/// fails the strategy's own `static_assert`; a layout that does not fit the model or the world size
/// (48 heads on TP 5, EP 3 over 8 experts) fails aicb::validate in a constant expression, whose notes
/// carry the rule's text, as at run time the same call throws aicb::config_error naming it.

#include <aicb/config.hpp>
#include <aicb/model/batch.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/parallel.hpp>
#include <aicb/model/spec.hpp>

#include <cstdint>
#include <type_traits>

AICB_BEGIN_NAMESPACE

/// One size of a strategy: sets `Field` of parallel_spec to `N`.
template <std::uint64_t parallel_spec::*Field, std::uint64_t N>
struct parallel_size {
  static_assert(N >= 1, "a parallel size must be at least 1");
  static constexpr void apply(parallel_spec& p) noexcept { p.*Field = N; }
  static constexpr auto field = Field;
};

/// A switch of a strategy: sets `Field` of parallel_spec.
template <bool parallel_spec::*Field>
struct parallel_switch {
  static constexpr void apply(parallel_spec& p) noexcept { p.*Field = true; }
  static constexpr auto field = Field;
};

template <std::uint64_t N>
using tp = parallel_size<&parallel_spec::tensor_parallel, N>;  ///< tensor parallel
template <std::uint64_t N>
using pp = parallel_size<&parallel_spec::pipeline_parallel, N>;  ///< pipeline parallel
template <std::uint64_t N>
using vpp = parallel_size<&parallel_spec::virtual_pipeline, N>;  ///< model chunks per stage (interleaved)
template <std::uint64_t N>
using cp = parallel_size<&parallel_spec::context_parallel, N>;  ///< context parallel
template <std::uint64_t N>
using ep = parallel_size<&parallel_spec::expert_parallel, N>;  ///< expert parallel
template <std::uint64_t N>
using etp = parallel_size<&parallel_spec::expert_tensor_parallel, N>;  ///< tensor parallel inside experts
using sp = parallel_switch<&parallel_spec::sequence_parallel>;         ///< sequence parallel
using distributed_optimizer =
    parallel_switch<&parallel_spec::distributed_optimizer>;  ///< optimizer sharded over DP

namespace detail {

// Whether two dimensions set the same field (fields of different types never coincide).
template <class A, class B>
[[nodiscard]] constexpr bool same_field() noexcept {
  if constexpr (std::is_same_v<decltype(A::field), decltype(B::field)>)
    return A::field == B::field;
  else
    return false;
}

template <class First, class... Rest>
inline constexpr bool given_once = (!same_field<First, Rest>() && ...);

template <class... Dimensions>
inline constexpr bool each_given_once = true;
template <class First, class... Rest>
inline constexpr bool each_given_once<First, Rest...> = given_once<First, Rest...>&& each_given_once<Rest...>;

}  // namespace detail

/// A parallel layout as a type: the sizes and switches `Dimensions` (tp, pp, vpp, cp, ep, etp, sp,
/// distributed_optimizer), each at most once; data parallelism takes the GPUs that remain.
template <class... Dimensions>
struct parallel_strategy {
  static_assert(detail::each_given_once<Dimensions...>,
                "each dimension of a parallel_strategy is given once (a size or switch is given twice)");

  /// The layout on `world_size` GPUs.
  [[nodiscard]] static constexpr parallel_spec on(std::uint64_t world_size) noexcept {
    parallel_spec p{.world_size = world_size};
    (Dimensions::apply(p), ...);
    return p;
  }

  /// `Model` trained with this layout on `WorldSize` GPUs, checked: a rule the layout breaks is a
  /// compile error naming it (aicb::checked_job).
  template <model_spec Model, std::uint64_t WorldSize, batch_spec Batch = batch_spec{}>
  static constexpr job_spec job = checked_job<job_spec{Model, on(WorldSize), Batch}>;
};

AICB_END_NAMESPACE
