// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::bytes — a byte count as a strong type.
///
/// Every size aicb handles (messages, parameters, memory) is in bytes, and mixing them up with
/// element counts is the classic workload-generator bug (bf16 = 2 bytes per element, fp32 = 4).
/// So a byte count is never built implicitly from an integer:
///
/// ```cpp
/// using namespace aicb::literals;
/// aicb::bytes a{4096};        // explicit: fine
/// aicb::bytes b = 16_MiB;     // literal: fine
/// aicb::bytes c = 4096;       // does not compile
/// ```
///
/// Light: safe in CUDA translation units (members are AICB_HOST_DEVICE).

#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <compare>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

AICB_BEGIN_NAMESPACE

namespace detail {
// Raised by bytes arithmetic that would wrap (host code only: device code cannot throw, and the
// kernels that use bytes compute sizes far below the limit).
[[noreturn]] inline void bytes_overflow(const char* operation, std::uint64_t a, std::uint64_t b) {
  AICB_THROW(config_error("bytes", std::to_string(a) + " " + operation + " " + std::to_string(b),
                          "a byte count must stay between 0 and 2^64-1"));
}
}  // namespace detail

#if defined(__CUDA_ARCH__)
#  define AICB_DETAIL_BYTES_REQUIRE(ok, operation, a, b) ((void)0)
#else
#  define AICB_DETAIL_BYTES_REQUIRE(ok, operation, a, b) \
    ((ok) ? (void)0 : ::aicb::detail::bytes_overflow(operation, a, b))
#endif

/// A non-negative number of bytes.
///
/// Arithmetic keeps the unit honest: bytes ± bytes and bytes × / ÷ integer give bytes;
/// bytes ÷ bytes gives a plain count. It is also checked: a result below 0 or above 2^64 − 1 (a
/// negative integer, a difference that would go below zero, a product that would wrap) throws
/// aicb::config_error in host code — a compile error in a constant expression — instead of wrapping.
class bytes {
 public:
  using rep = std::uint64_t;

  constexpr bytes() noexcept = default;

  /// From any integer type except bool; explicit, so `bytes b = 5;` does not compile. A negative
  /// value is an error.
  template <std::integral I>
  requires(!std::same_as<I, bool>) AICB_HOST_DEVICE constexpr explicit bytes(I n)
      : count_(static_cast<rep>(n)) {
    if constexpr (std::is_signed_v<I>) AICB_DETAIL_BYTES_REQUIRE(n >= 0, "from", 0, count_);
  }

  /// A byte count from a floating-point number would hide rounding; use std::llround explicitly.
  explicit bytes(double) = delete;
  explicit bytes(float) = delete;

  /// The number of bytes.
  [[nodiscard]] AICB_HOST_DEVICE constexpr rep count() const noexcept { return count_; }

  [[nodiscard]] friend constexpr auto operator<=>(bytes, bytes) noexcept = default;

  AICB_HOST_DEVICE constexpr bytes& operator+=(bytes other) {
    AICB_DETAIL_BYTES_REQUIRE(other.count_ <= ~rep{0} - count_, "+", count_, other.count_);
    count_ += other.count_;
    return *this;
  }
  AICB_HOST_DEVICE constexpr bytes& operator-=(bytes other) {
    AICB_DETAIL_BYTES_REQUIRE(other.count_ <= count_, "-", count_, other.count_);
    count_ -= other.count_;
    return *this;
  }
  [[nodiscard]] AICB_HOST_DEVICE friend constexpr bytes operator+(bytes a, bytes b) { return a += b; }
  [[nodiscard]] AICB_HOST_DEVICE friend constexpr bytes operator-(bytes a, bytes b) { return a -= b; }
  template <std::integral I>
  [[nodiscard]] AICB_HOST_DEVICE friend constexpr bytes operator*(bytes a, I k) {
    if constexpr (std::is_signed_v<I>) AICB_DETAIL_BYTES_REQUIRE(k >= 0, "x", a.count_, 0);
    const rep factor = static_cast<rep>(k);
    AICB_DETAIL_BYTES_REQUIRE(factor == 0 || a.count_ <= ~rep{0} / factor, "x", a.count_, factor);
    return bytes{a.count_ * factor};
  }
  template <std::integral I>
  [[nodiscard]] AICB_HOST_DEVICE friend constexpr bytes operator*(I k, bytes a) {
    return a * k;
  }
  /// Floor division, as byte counts split into shards are.
  template <std::integral I>
  [[nodiscard]] AICB_HOST_DEVICE friend constexpr bytes operator/(bytes a, I k) noexcept {
    return bytes{a.count_ / static_cast<rep>(k)};
  }
  /// How many times `b` fits into `a` (floor): a dimensionless count.
  [[nodiscard]] AICB_HOST_DEVICE friend constexpr rep operator/(bytes a, bytes b) noexcept {
    return a.count_ / b.count_;
  }
  template <std::integral I>
  [[nodiscard]] AICB_HOST_DEVICE friend constexpr bytes operator%(bytes a, I k) noexcept {
    return bytes{a.count_ % static_cast<rep>(k)};
  }

 private:
  rep count_ = 0;
};

/// The size of `n` elements of `element_size` bytes each (e.g. `elements(numel, 2)` for bf16);
/// config_error when it exceeds 2^64 − 1.
[[nodiscard]] AICB_HOST_DEVICE constexpr bytes elements(std::uint64_t n, std::uint64_t element_size) {
  return bytes{n} * element_size;
}

/// Human-readable IEC form with three significant decimals: "512 B", "1.500 KiB", "16.000 GiB".
/// For display only; files always carry exact integers.
[[nodiscard]] inline std::string to_iec_string(bytes b) {
  constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (b.count() < 1024) return std::to_string(b.count()) + " B";
  double value = static_cast<double>(b.count());
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3f %s", value, units[unit]);
  return text;
}

namespace literals {

// IEC (binary) multiples — what message and memory sizes use.
[[nodiscard]] AICB_HOST_DEVICE constexpr bytes operator""_B(unsigned long long n) noexcept {
  return bytes{n};
}
[[nodiscard]] AICB_HOST_DEVICE constexpr bytes operator""_KiB(unsigned long long n) noexcept {
  return bytes{n << 10};
}
[[nodiscard]] AICB_HOST_DEVICE constexpr bytes operator""_MiB(unsigned long long n) noexcept {
  return bytes{n << 20};
}
[[nodiscard]] AICB_HOST_DEVICE constexpr bytes operator""_GiB(unsigned long long n) noexcept {
  return bytes{n << 30};
}
[[nodiscard]] AICB_HOST_DEVICE constexpr bytes operator""_TiB(unsigned long long n) noexcept {
  return bytes{n << 40};
}
// SI (decimal) multiples — what datasheets use for memory capacity ("80 GB").
[[nodiscard]] AICB_HOST_DEVICE constexpr bytes operator""_KB(unsigned long long n) noexcept {
  return bytes{n * 1000ULL};
}
[[nodiscard]] AICB_HOST_DEVICE constexpr bytes operator""_MB(unsigned long long n) noexcept {
  return bytes{n * 1000'000ULL};
}
[[nodiscard]] AICB_HOST_DEVICE constexpr bytes operator""_GB(unsigned long long n) noexcept {
  return bytes{n * 1000'000'000ULL};
}

}  // namespace literals

AICB_END_NAMESPACE
