// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::record_stream — turns a generator (a small state machine that fills one record at a time)
/// into a lazy range-v3 view of records, so a workload of any length is produced on demand and never
/// held in memory. It models range-v3's view and std::ranges::input_range, so range-v3's adaptors
/// compose with it:
///
/// ```cpp
/// for (const aicb::record& r : generator.records()) sink(r);            // one record at a time
/// auto first = generator.records() | ranges::views::take(10);           // range-v3
/// ```
///
/// A Source provides `const record* next()` — the next record, valid until the following call, or
/// nullptr at the end (so a record is handed out without a copy) — and `std::uint64_t size() const`
/// (the number of records it will produce, known in advance: file formats state it first).

#include <aicb/config.hpp>
#include <aicb/workload/record.hpp>

#include <range/v3/view/facade.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

AICB_BEGIN_NAMESPACE

/// A stretch of a workload: the same records `times` times in a row. Training workloads are mostly
/// one micro batch's records repeated; a workload that knows its repetition offers
/// `for_each_run(f)`, calling `f(record_run)` for consecutive stretches that together are exactly
/// its records() — so a writer formats a micro batch once and copies its text.
struct record_run {
  std::span<const record> records;
  std::uint64_t times = 1;
};

/// A lazy, single-pass range-v3 view over the records a Source produces. Copies share the source
/// (the view owns it, and an iterator keeps it alive): a pass continues where the last one stopped.
template <class Source>
class record_stream : public ranges::view_facade<record_stream<Source>, ranges::finite> {
 public:
  /// An empty stream (views are default-constructible); iterate only a constructed one.
  record_stream() = default;
  explicit record_stream(Source source) : source_(std::make_shared<Source>(std::move(source))) {}

  /// Records the stream produces in total.
  [[nodiscard]] std::uint64_t size() const { return source_->size(); }

 private:
  friend ranges::range_access;

  struct cursor {
    using single_pass = std::true_type;
    std::shared_ptr<Source> source;
    const record* current = nullptr;
    [[nodiscard]] const record& read() const noexcept { return *current; }
    void next() { current = source->next(); }
    [[nodiscard]] bool equal(ranges::default_sentinel_t) const noexcept { return current == nullptr; }
  };
  [[nodiscard]] cursor begin_cursor() const {
    cursor c{source_};
    c.next();
    return c;
  }

  std::shared_ptr<Source> source_;
};

AICB_END_NAMESPACE
