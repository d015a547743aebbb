// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::record_stream — turns a generator (a small state machine that fills one record at a time)
/// into a lazy input range of records, so a workload of any length is produced on demand and never
/// held in memory. It models both std::ranges::input_range and range-v3's InputRange, so range-v3
/// views compose with it:
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

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
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

/// A lazy, single-pass range over the records a Source produces.
template <class Source>
class record_stream {
 public:
  explicit record_stream(Source source) : source_(std::make_unique<Source>(std::move(source))) {}

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using iterator_concept = std::input_iterator_tag;
    using value_type = record;
    using difference_type = std::ptrdiff_t;
    using reference = const record&;
    using pointer = const record*;

    iterator() = default;
    explicit iterator(record_stream* owner) : owner_(owner) { advance(); }

    reference operator*() const { return *current_; }
    pointer operator->() const { return current_; }
    iterator& operator++() {
      advance();
      return *this;
    }
    void operator++(int) { advance(); }
    friend bool operator==(const iterator& i, std::default_sentinel_t) { return i.owner_ == nullptr; }

   private:
    void advance() {
      if (owner_ && !(current_ = owner_->source_->next())) owner_ = nullptr;
    }
    record_stream* owner_ = nullptr;
    const record* current_ = nullptr;
  };

  /// Starts the pass. A record_stream is single-pass: call begin() once.
  [[nodiscard]] iterator begin() { return iterator(this); }
  [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }
  /// Records the stream produces in total.
  [[nodiscard]] std::uint64_t size() const { return source_->size(); }

 private:
  std::unique_ptr<Source> source_;  // stable address: iterators point at the stream
};

AICB_END_NAMESPACE
