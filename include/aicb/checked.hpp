// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Checked arithmetic for every size, count and time derived from user input.
///
/// A workload generator multiplies user input together — micro batch × sequence × hidden size ×
/// bytes per element, micro batches × layers × iterations — and 64-bit integers wrap silently: a
/// hidden size of 2^32 times a sequence of 2^32 is 0 bytes. aicb never writes such a number. Every
/// product and sum that can overflow goes through these functions, and an overflow is an
/// aicb::config_error naming what was computed, its operands and the limit:
///
/// ```cpp
/// const std::uint64_t n = aicb::checked_mul(microbatches, records_per_microbatch, "records per iteration");
/// // micro batches 2^40 x 2^30 records: config_error
/// // "records per iteration = 1099511627776 x 1073741824: the result must not exceed 2^64-1
/// (18446744073709551615)"
/// ```
///
/// Times derived from input go through aicb::checked_ns (aicb/units/duration.hpp).
///
/// Light: no allocation unless an error is raised; usable in constant expressions (an overflow
/// there is a compile error) and in CUDA device code (the `_fits` predicates).

#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The largest value of the 64-bit unsigned integers that hold sizes and counts.
inline constexpr std::uint64_t max_u64 = std::numeric_limits<std::uint64_t>::max();

/// The largest size aicb derives from a description: a parameter count, a tensor's elements, the
/// tokens of an iteration — 2^50, about 10^15. That is orders of magnitude beyond any model or
/// accelerator, and small enough that every byte count, FLOP count and sum derived from such sizes
/// fits in 64 bits. A description beyond it is a config_error, never a wrapped number.
inline constexpr std::uint64_t max_derived_size = std::uint64_t{1} << 50;

/// Whether a · b fits in 64 unsigned bits.
[[nodiscard]] AICB_HOST_DEVICE constexpr bool mul_fits(std::uint64_t a, std::uint64_t b) noexcept {
  return a == 0 || b <= max_u64 / a;
}
/// Whether a + b fits in 64 unsigned bits.
[[nodiscard]] AICB_HOST_DEVICE constexpr bool add_fits(std::uint64_t a, std::uint64_t b) noexcept {
  return b <= max_u64 - a;
}

namespace detail {

[[noreturn]] inline void arithmetic_overflow(std::string_view what, std::uint64_t a, const char* op,
                                             std::uint64_t b, std::uint64_t limit) {
  std::string value = std::to_string(a);
  value.append(1, ' ').append(op).append(1, ' ').append(std::to_string(b));
  std::string rule = "the result must not exceed ";
  rule += limit == max_u64 ? "2^64-1 (" + std::to_string(limit) + ")" : std::to_string(limit);
  AICB_THROW(config_error(std::string(what), std::move(value), std::move(rule)));
}

}  // namespace detail

/// a · b; config_error naming `what` (and both operands) when the product exceeds `limit`
/// (default: 2^64 − 1).
[[nodiscard]] constexpr std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what,
                                                  std::uint64_t limit = max_u64) {
  if (!mul_fits(a, b) || a * b > limit) detail::arithmetic_overflow(what, a, "x", b, limit);
  return a * b;
}

/// a + b; config_error naming `what` when the sum exceeds `limit` (default: 2^64 − 1).
[[nodiscard]] constexpr std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what,
                                                  std::uint64_t limit = max_u64) {
  if (!add_fits(a, b) || a + b > limit) detail::arithmetic_overflow(what, a, "+", b, limit);
  return a + b;
}

/// The product of `factors` when it does not exceed `limit`; nothing otherwise. For rules that
/// phrase their own message (job validation names the field at fault).
[[nodiscard]] constexpr std::optional<std::uint64_t> product_within(
    std::initializer_list<std::uint64_t> factors, std::uint64_t limit = max_u64) noexcept {
  std::uint64_t product = 1;
  for (const std::uint64_t f : factors) {
    if (!mul_fits(product, f)) return std::nullopt;
    product *= f;
  }
  if (product > limit) return std::nullopt;
  return product;
}

/// A non-negative floating-point quantity (bytes, elements) truncated to an integer, or a
/// config_error naming `what` when it is not a number, negative, or not below 2^64 — never the
/// undefined behaviour of converting an out-of-range double to an integer.
[[nodiscard]] inline std::uint64_t checked_integer(double x, std::string_view what) {
  if (!(x >= 0) || !(x < 18446744073709551616.0)) {
    char text[48];
    std::snprintf(text, sizeof text, "%.6g", x);
    AICB_THROW(config_error(std::string(what), text, "the result must be between 0 and 2^64-1"));
  }
  return static_cast<std::uint64_t>(x);
}

AICB_END_NAMESPACE
