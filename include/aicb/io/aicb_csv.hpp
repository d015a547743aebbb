// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb's physical-cluster workload CSV: the file of "LogItems" that aliyun/aicb replays with real
/// collectives on a cluster (docs/csv.md). One header line, then one line per item:
///
/// ```
/// comm_type,comm_group,comm_group_size,msg_size,stage,dst,src,additional,_elapsed_time,algbw,busbw,count
/// CommType.all_reduce,CommGroup.dp_group,8,1973518336,step.finish_grad_sync,None,None,,None,None,None,1
/// CommType.computation,None,None,((4096 1 4096) (4096
/// 6144)),forward.MegatronColumnLinear.attention_column,None,None,,None,None,None,1
/// ```
///
/// Values are Python's `str()` of the fields: enum members as `CommType.x` / `CommGroup.x`, absent
/// values as `None`. `msg_size` is bytes — an integer, a float where aicb multiplies by an FP8
/// factor (`6488064.0`), or, for computation items, the shapes of the two GEMM operands. The last
/// four columns are measurements, `None` in a generated workload.
///
/// aicb::csv_item (<aicb/workload/csv_item.hpp>) is one line; aicb::append_csv_line formats it and
/// aicb::csv_writer streams items into an atomically renamed file.
/// The reader is in <aicb/io/aicb_csv_reader.hpp>.

#include <aicb/config.hpp>
#include <aicb/detail/python_float.hpp>
#include <aicb/error.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/workload/csv_item.hpp>

#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The header line, without its newline.
inline constexpr std::string_view csv_header =
    "comm_type,comm_group,comm_group_size,msg_size,stage,dst,src,additional,_elapsed_time,algbw,busbw,count";

namespace detail {

inline void append_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
inline void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

inline void append_python_float(std::string& out, double v) { out += python_float_repr(v); }

inline void append_optional(std::string& out, const std::optional<std::int64_t>& v) {
  if (v)
    append_int(out, *v);
  else
    out.append("None");
}
inline void append_optional(std::string& out, const std::optional<double>& v) {
  if (v)
    append_python_float(out, *v);
  else
    out.append("None");
}

inline void append_shape(std::string& out, const csv_shape& s) {
  out.push_back('(');
  for (std::uint8_t i = 0; i < s.rank; ++i) {
    if (i) out.push_back(' ');
    append_uint(out, s.dims[i]);
  }
  out.push_back(')');
}

}  // namespace detail

/// Appends `item` as one CSV line (with its newline) to `out`.
inline void append_csv_line(std::string& out, const csv_item& item) {
  out.append("CommType.").append(to_string(item.op)).push_back(',');
  if (item.group == csv_group::none)
    out.append("None,");
  else
    out.append("CommGroup.").append(to_string(item.group)).push_back(',');
  if (item.group_size)
    detail::append_uint(out, *item.group_size);
  else
    out.append("None");
  out.push_back(',');
  if (item.is_computation()) {
    out.push_back('(');
    detail::append_shape(out, item.shapes[0]);
    out.push_back(' ');
    detail::append_shape(out, item.shapes[1]);
    out.push_back(')');
  } else if (item.msg_size_float) {
    detail::append_python_float(out, *item.msg_size_float);
  } else {
    detail::append_uint(out, item.msg_size);
  }
  out.push_back(',');
  out.append(item.stage).push_back(',');
  detail::append_optional(out, item.dst);
  out.push_back(',');
  detail::append_optional(out, item.src);
  out.push_back(',');
  out.append(item.additional).push_back(',');
  detail::append_optional(out, item.elapsed_time);
  out.push_back(',');
  detail::append_optional(out, item.algbw);
  out.push_back(',');
  detail::append_optional(out, item.busbw);
  out.push_back(',');
  detail::append_uint(out, item.count);
  out.push_back('\n');
}

/// Streams CSV items into a file that appears, complete, only on finish().
class csv_writer {
 public:
  explicit csv_writer(const std::string& path, const output_options& options = {}) : out_(path, options) {
    buffer_.reserve(buffer_size + 512);
    buffer_.append(csv_header).push_back('\n');
  }
  /// Appends one item. Stage and additional text must not contain a comma or a line break.
  void write(const csv_item& item) {
    for (std::string_view text : {item.stage, item.additional})
      if (text.find_first_of(",\r\n") != std::string_view::npos)
        AICB_THROW(
            config_error("stage", std::string(text), "CSV text fields cannot hold ',' or line breaks"));
    append_csv_line(buffer_, item);
    ++items_;
    if (buffer_.size() >= buffer_size) flush();
  }
  /// Writes what is buffered and renames the file into place.
  void finish() {
    flush();
    out_.commit();
  }
  [[nodiscard]] std::uint64_t items() const noexcept { return items_; }

 private:
  static constexpr std::size_t buffer_size = 1 << 20;
  void flush() {
    out_.write(buffer_);
    buffer_.clear();
  }
  atomic_file out_;
  std::string buffer_;
  std::uint64_t items_ = 0;
};

AICB_END_NAMESPACE
