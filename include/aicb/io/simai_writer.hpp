// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Writes SimAI workload files (`HYBRID_TRANSFORMER_FWD_IN_BCKWD` text, docs/lint.md): a header
/// line, the record count, then one line of 12 tab-separated fields per record. Streams with fast
/// integer formatting into an atomically renamed file.
///
/// SimAI validates almost nothing, so in strict mode (the default, used for the corrected
/// workloads) every record is checked against the ways SimAI silently misreads a file: only the
/// four collectives SimAI simulates, each in a column whose group SimAI can express, NONE with size
/// 0, no message above 16 GiB where SimAI times it through its efficiency tables, no collective
/// over a TP group of one GPU (SimAI's time for it is garbage), the record count written first
/// equal to the records written, and a header with every key SimAI needs. In every mode the header
/// values and the record count must fit SimAI's `stoi` (2^31 − 1): beyond that SimAI aborts.
/// aicb compatibility writes aicb's records as they are (strict = false), quirks included.

#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/simai_format.hpp>
#include <aicb/workload/record.hpp>

#include <algorithm>
#include <charconv>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Streams a SimAI workload into a file, atomically.
class simai_writer {
 public:
  /// @param path   the file (written under a temporary name until finish())
  /// @param header the header line's fields
  /// @param count  the number of records that will be written (SimAI reads it first)
  /// @param strict check every record against SimAI's silent failure modes (see the file comment)
  /// @param options what the file must not be (the command's inputs)
  simai_writer(const std::string& path, const simai_header& header, std::uint64_t count, bool strict = true,
               const output_options& options = {})
      : header_(header), count_(count), strict_(strict) {
    check_readable(header, count);
    if (strict_) check_header(header);
    out_.emplace(path, options);
    buffer_.reset(new char[buffer_size]);
    const std::string head = simai_header_line(header) + "\n" + std::to_string(count) + "\n";
    out_->write(head);
  }

  /// Appends one record.
  void write(const record& r) {
    ++written_;
    check_simulable(r);
    if (strict_) check(r);
    // Fields are copied and formatted straight into a flat buffer (the hot path of large workloads).
    if (used_ + r.name.size() + max_record_tail > buffer_size) flush();
    if (r.name.size() + max_record_tail > buffer_size)
      AICB_THROW(
          config_error("name", r.name.substr(0, 64) + "...", "a record name must be shorter than 64 KiB"));
    used_ = static_cast<std::size_t>(format(buffer_.get() + used_, r) - buffer_.get());
  }

  /// Appends `block` `times` times: each record checked once, the block's text formatted once and
  /// copied — how micro batches, which repeat, are written at the speed of the disk.
  void write(std::span<const record> block, std::uint64_t times) {
    if (block.empty() || times == 0) return;
    if (times == 1) {
      for (const record& r : block)
        write(r);
      return;
    }
    std::size_t length = 0;
    for (const record& r : block) {
      check_simulable(r);
      if (strict_) check(r);
      if (r.name.size() + max_record_tail > buffer_size)
        AICB_THROW(
            config_error("name", r.name.substr(0, 64) + "...", "a record name must be shorter than 64 KiB"));
      length += r.name.size() + max_record_tail;
    }
    written_ = checked_add(written_, checked_mul(block.size(), times, "records"), "records");
    std::string text(length, '\0');
    char* end = text.data();
    for (const record& r : block)
      end = format(end, r);
    text.resize(static_cast<std::size_t>(end - text.data()));
    // As many whole copies as fill the buffer, written as often as needed, then the rest.
    flush();
    const std::uint64_t per_buffer = std::max<std::uint64_t>(1, buffer_size / text.size());
    std::string chunk;
    chunk.reserve(static_cast<std::size_t>(std::min(per_buffer, times)) * text.size());
    for (std::uint64_t i = 0; i < std::min(per_buffer, times); ++i)
      chunk += text;
    std::uint64_t left = times;
    const std::uint64_t copies = std::min(per_buffer, times);
    for (; left >= copies; left -= copies)
      out_->write(chunk);
    if (left > 0) out_->write(std::string_view(chunk.data(), static_cast<std::size_t>(left) * text.size()));
  }

  /// Formats one record's line at `p` (room for its name plus max_record_tail bytes); returns its end.
  static char* format(char* p, const record& r) {
    p = copy(p, r.name);
    p = copy(p, "\t-1");
    p = phase(p, r.forward, simai_column::forward);
    p = phase(p, r.input_grad, simai_column::input_grad);
    p = phase(p, r.weight_grad, simai_column::weight_grad);
    *p++ = '\t';
    p = integer(p, r.update.count());
    *p++ = '\n';
    return p;
  }

  /// Longest record line without its name: 9 numbers of at most 20 characters, 3 tokens of at most
  /// 19, and separators.
  static constexpr std::size_t max_record_tail = 9 * 21 + 3 * 20 + 8;

  /// Checks the count, then renames the file into place. Without it, nothing is left behind.
  /// With `commit` false the file is complete but not yet in place: commit it together with others
  /// through aicb::commit_together(&writer.file(), …).
  void finish(bool commit = true) {
    if (written_ != count_)
      AICB_THROW(error("SimAI writer: " + std::to_string(written_) +
                       " records written but the header announced " + std::to_string(count_) +
                       " (the file was not written)"));
    flush();
    if (commit) out_->commit();
  }

  /// The file being written.
  [[nodiscard]] atomic_file& file() noexcept { return *out_; }

 private:
  static constexpr std::size_t buffer_size = 1 << 20;

  static char* copy(char* p, std::string_view text) {
    std::memcpy(p, text.data(), text.size());
    return p + text.size();
  }
  static char* phase(char* p, const aicb::phase& ph, simai_column column) {
    *p++ = '\t';
    p = integer(p, ph.compute.count());
    *p++ = '\t';
    p = copy(p, simai_comm_token(ph.comm, column));
    *p++ = '\t';
    return integer(p, ph.comm.size.count());  // unsigned: a size above 2^63 is printed as it is
  }
  template <std::integral I>
  static char* integer(char* p, I value) {
    if (value >= 0 && value < 10) {  // most fields: 0, 1
      *p = static_cast<char>('0' + value);
      return p + 1;
    }
    return std::to_chars(p, p + 21, value).ptr;
  }
  void flush() {
    out_->write(std::string_view(buffer_.get(), used_));
    used_ = 0;
  }

  // What SimAI cannot even read, in any mode: a header value or record count above stoi's range.
  static void check_readable(const simai_header& h, std::uint64_t count) {
    if (count > simai_max_int)
      AICB_THROW(
          config_error("records", std::to_string(count),
                       "SimAI reads the record count with stoi: at most 2^31-1 (2147483647) records in one "
                       "file; write fewer iterations or micro batches"));
    for (const auto& [key, value] :
         {std::pair<const char*, std::uint64_t>{"model_parallel_NPU_group", h.tensor_parallel},
          {"ep", h.expert_parallel},
          {"pp", h.pipeline_parallel},
          {"vpp", h.vpp},
          {"ga", h.ga},
          {"all_gpus", h.all_gpus},
          {"checkpoints", h.checkpoints},
          {"checkpoint_initiates", h.checkpoint_initiates}})
      if (value > simai_max_int)
        AICB_THROW(
            config_error(key, std::to_string(value),
                         std::string("SimAI reads ") + key + " with stoi: at most 2^31-1 (2147483647)"));
  }

  static void check_header(const simai_header& h) {
    const auto positive = [](const char* key, std::uint64_t v) {
      if (v == 0)
        AICB_THROW(
            config_error(key, "0", std::string("SimAI divides by ") + key + ": it must be at least 1"));
    };
    positive("model_parallel_NPU_group", h.tensor_parallel);
    positive("ep", h.expert_parallel);
    positive("pp", h.pipeline_parallel);
    positive("vpp", h.vpp);
    positive("ga", h.ga);
    positive("all_gpus", h.all_gpus);
    std::uint64_t pp_comm = 0;
    const auto [end, error] = std::from_chars(h.pp_comm.data(), h.pp_comm.data() + h.pp_comm.size(), pp_comm);
    if (error != std::errc{} || end != h.pp_comm.data() + h.pp_comm.size() || pp_comm > 2147483647ULL)
      AICB_THROW(
          config_error("pp_comm", h.pp_comm, "SimAI reads pp_comm with stoi: an integer up to 2^31-1 bytes"));
    if ((h.pipeline_parallel == 1) != (pp_comm == 0))
      AICB_THROW(config_error("pp_comm", h.pp_comm,
                              "pp_comm must be 0 exactly when pp is 1 (SimAI warns otherwise)"));
  }
  // What SimAI cannot simulate, in any mode (aicb's own files included: SimAI would exit 0 with an
  // empty result): a compute time at or above simai_max_compute_time. Refused, naming the record.
  static void check_simulable(const record& r) {
    const std::pair<const aicb::phase*, const char*> columns[] = {
        {&r.forward, "forward"}, {&r.input_grad, "input-gradient"}, {&r.weight_grad, "weight-gradient"}};
    for (const auto& [p, column] : columns)
      if (p->compute.count() > simai_max_compute_time)
        AICB_THROW(config_error(
            "compute", r.name + ": " + column + " compute time " + std::to_string(p->compute.count()) + " ns",
            "SimAI cannot simulate a compute time above " + std::to_string(simai_max_compute_time) +
                " ns (it truncates times to 32 bits and exits 0 with an empty result): use a smaller "
                "micro batch or more tensor parallelism, or write Chakra traces (no such limit)"));
  }

  void check(const record& r) {
    if (r.name.empty() || r.name.find_first_of(" \t\r\n") != std::string::npos)
      AICB_THROW(config_error("name", r.name, "a SimAI record name is one token: non-empty, no whitespace"));
    for (const auto* p : {&r.forward, &r.input_grad, &r.weight_grad}) {
      if (p->compute.count() < 0)
        AICB_THROW(
            config_error("compute", std::to_string(p->compute.count()), "compute times are not negative"));
      if (!p->comm.active() && p->comm.size.count() != 0)
        AICB_THROW(
            config_error("size", std::to_string(p->comm.size.count()), "a NONE column carries no size"));
    }
    const std::pair<const aicb::phase*, simai_column> columns[] = {
        {&r.forward, simai_column::forward},
        {&r.input_grad, simai_column::input_grad},
        {&r.weight_grad, simai_column::weight_grad}};
    for (const auto& [p, column] : columns) {
      if (!p->comm.active()) continue;
      const int suffix = p->comm.group == comm_group::ep ? 1 : p->comm.group == comm_group::dp_ep ? 2 : 0;
      const simai_group group = simai_group_of(suffix, column);
      const std::uint64_t size = p->comm.size.count();
      const std::string where = r.name + ": " + std::string(simai_comm_token(p->comm, column)) + " of " +
                                std::to_string(size) + " bytes";
      if (simai_uses_ratio_table(p->comm.kind, group) && size > simai_max_message)
        AICB_THROW(
            config_error("size", where,
                         "above 16 GiB SimAI's efficiency table for this collective ends: it drops the "
                         "collective and truncates its result (split the message)"));
      const std::uint64_t ranks =
          simai_group_ranks(group, column, header_.tensor_parallel, header_.expert_parallel,
                            header_.pipeline_parallel, header_.all_gpus);
      if (simai_single_gpu_garbage(group, ranks, size))
        AICB_THROW(
            config_error("group", where,
                         "a collective over a TP group of one GPU: SimAI's bus bandwidth for it is -1 and "
                         "its time garbage (drop the collective)"));
    }
  }

  simai_header header_;
  std::uint64_t count_, written_ = 0;
  bool strict_;
  std::optional<atomic_file> out_;  // created once the header is known to be writable
  std::unique_ptr<char[]> buffer_;
  std::size_t used_ = 0;
};

/// The size in bytes of a SimAI file of `count` records, estimated before it is written: the
/// header, and `count` times the mean line length of the first `sample` records that `records`
/// yields (exact when the workload repeats a pattern shorter than the sample, as training
/// iterations do). Saturates at 2^64 − 1.
template <class Records>
[[nodiscard]] std::uint64_t estimate_simai_bytes(const simai_header& header, std::uint64_t count,
                                                 Records&& records, std::uint64_t sample = 65536) {
  const double head =
      static_cast<double>(simai_header_line(header).size() + std::to_string(count).size() + 2);
  double lines = 0;
  std::uint64_t seen = 0;
  std::string line;
  for (const record& r : records) {
    if (seen == sample) break;
    line.resize(r.name.size() + simai_writer::max_record_tail);
    lines += static_cast<double>(simai_writer::format(line.data(), r) - line.data());
    ++seen;
  }
  const double total =
      head + (seen == 0 ? 0.0 : lines / static_cast<double>(seen) * static_cast<double>(count));
  return total >= 18446744073709551615.0 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(total);
}

AICB_END_NAMESPACE
