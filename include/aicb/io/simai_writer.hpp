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
/// 0, a warning above 16 GiB (SimAI's largest message), the record count written first equal to
/// the records written, and a header with every key SimAI needs. aicb compatibility writes aicb's
/// records as they are (strict = false), quirks included.

#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/simai_format.hpp>
#include <aicb/workload/record.hpp>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Streams a SimAI workload into a file, atomically.
class simai_writer {
 public:
  /// @param path   the file (written under a temporary name until finish())
  /// @param header the header line's fields
  /// @param count  the number of records that will be written (SimAI reads it first)
  /// @param strict check every record against SimAI's silent failure modes (see the file comment)
  simai_writer(const std::string& path, const simai_header& header, std::uint64_t count, bool strict = true)
      : out_(path), count_(count), strict_(strict), buffer_(new char[buffer_size]) {
    if (strict_) check_header(header);
    const std::string head = simai_header_line(header) + "\n" + std::to_string(count) + "\n";
    out_.write(head);
  }

  /// Appends one record.
  void write(const record& r) {
    ++written_;
    if (strict_) check(r);
    // Fields are copied and formatted straight into a flat buffer (the hot path of large workloads).
    if (used_ + r.name.size() + max_record_tail > buffer_size) flush();
    if (r.name.size() + max_record_tail > buffer_size)
      AICB_THROW(
          config_error("name", r.name.substr(0, 64) + "...", "a record name must be shorter than 64 KiB"));
    char* p = buffer_.get() + used_;
    p = copy(p, r.name);
    p = copy(p, "\t-1");
    p = phase(p, r.forward, simai_column::forward);
    p = phase(p, r.input_grad, simai_column::input_grad);
    p = phase(p, r.weight_grad, simai_column::weight_grad);
    *p++ = '\t';
    p = integer(p, r.update.count());
    *p++ = '\n';
    used_ = static_cast<std::size_t>(p - buffer_.get());
  }

  /// Checks the count, then renames the file into place. Without it, nothing is left behind.
  void finish() {
    if (written_ != count_)
      AICB_THROW(error("SimAI writer: " + std::to_string(written_) +
                       " records written but the header announced " + std::to_string(count_) +
                       " (the file was not written)"));
    flush();
    out_.commit();
  }

  /// Warnings collected in strict mode (messages above 16 GiB).
  [[nodiscard]] const std::vector<std::string>& warnings() const noexcept { return warnings_; }

 private:
  static constexpr std::size_t buffer_size = 1 << 20;
  // Longest record without its name: 9 numbers of at most 20 characters, 3 tokens of at most 19,
  // and separators.
  static constexpr std::size_t max_record_tail = 9 * 21 + 3 * 20 + 8;

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
    return integer(p, static_cast<std::int64_t>(ph.comm.size.count()));
  }
  static char* integer(char* p, std::int64_t value) {
    if (value >= 0 && value < 10) {  // most fields: 0, 1
      *p = static_cast<char>('0' + value);
      return p + 1;
    }
    return std::to_chars(p, p + 21, value).ptr;
  }
  void flush() {
    out_.write(std::string_view(buffer_.get(), used_));
    used_ = 0;
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
      if (p->comm.size.count() > simai_max_message)
        warnings_.push_back(
            r.name + ": " + std::to_string(p->comm.size.count()) +
            " bytes exceeds 16 GiB, beyond SimAI's efficiency table (SimAI drops the collective)");
    }
  }

  atomic_file out_;
  std::uint64_t count_, written_ = 0;
  bool strict_;
  std::unique_ptr<char[]> buffer_;
  std::size_t used_ = 0;
  std::vector<std::string> warnings_;
};

AICB_END_NAMESPACE
