// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Protocol Buffers' wire format, by hand: aicb::protobuf_message builds one message's bytes and
/// aicb::protobuf_fields reads them back, field by field — enough to write and read Chakra execution
/// traces (aicb/io/chakra.hpp) without linking libprotobuf, so that vendoring aicb stays
/// dependency-free. (The test suite checks the bytes against the real library.)
///
/// ```cpp
/// aicb::protobuf_message node;
/// node.add_uint(1, 42).add_string(2, "attention_qkv");   // Node.id, Node.name
/// std::string stream;
/// aicb::append_delimited(stream, node);                 // varint length, then the message
/// ```
///
/// The encoding (https://protobuf.dev/programming-guides/encoding/): each field is a key — field
/// number << 3 | wire type — then its value: a varint (wire type 0: integers, bools, enums; negative
/// int32/int64 as their 64-bit two's complement, ten bytes), a 64-bit little-endian value (1:
/// double), or a length and that many bytes (2: strings, nested messages, packed repeated scalars).
/// proto3 leaves fields at their default out; a member of a `oneof` is written even when it is zero,
/// so that the reader sees which member is set — the add_* calls always write, and a caller leaves
/// out what it wants left out.
///
/// The reader refuses what is not well formed — a varint longer than ten bytes, a length past the
/// end, a wire type it does not know, field number 0 — with an aicb::error naming the offset;
/// it never reads past its buffer.

#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

AICB_BEGIN_NAMESPACE

/// How a field's value is encoded (the low three bits of its key).
enum class wire_type : std::uint8_t { varint = 0, fixed64 = 1, length_delimited = 2, fixed32 = 5 };

/// Appends `value` as a base-128 varint (least significant group first).
inline void append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

/// One message's bytes, built field by field in the order the calls come (see the file comment).
class protobuf_message {
 public:
  /// An unsigned integer, bool or enum field (uint32, uint64, bool, enum: varint).
  protobuf_message& add_uint(std::uint32_t field, std::uint64_t value) {
    key(field, wire_type::varint);
    append_varint(bytes_, value);
    return *this;
  }
  /// A signed integer field (int32, int64: the two's complement as a varint).
  protobuf_message& add_int(std::uint32_t field, std::int64_t value) {
    return add_uint(field, static_cast<std::uint64_t>(value));
  }
  protobuf_message& add_bool(std::uint32_t field, bool value) { return add_uint(field, value ? 1 : 0); }
  /// A double field (64 bits, little-endian).
  protobuf_message& add_double(std::uint32_t field, double value) {
    key(field, wire_type::fixed64);
    std::uint64_t bits = std::bit_cast<std::uint64_t>(value);
    for (int i = 0; i < 8; ++i, bits >>= 8)
      bytes_ += static_cast<char>(bits & 0xff);
    return *this;
  }
  /// A string or bytes field.
  protobuf_message& add_string(std::uint32_t field, std::string_view value) {
    key(field, wire_type::length_delimited);
    append_varint(bytes_, value.size());
    bytes_.append(value);
    return *this;
  }
  /// A nested message field.
  protobuf_message& add_message(std::uint32_t field, const protobuf_message& message) {
    return add_string(field, message.bytes());
  }
  /// A packed repeated varint field (proto3's encoding of `repeated uint64` and the like).
  template <class Range>
  protobuf_message& add_packed(std::uint32_t field, const Range& values) {
    packed_.clear();
    for (const auto v : values)
      append_varint(packed_, static_cast<std::uint64_t>(v));
    if (!packed_.empty()) add_string(field, packed_);
    return *this;
  }

  [[nodiscard]] const std::string& bytes() const noexcept { return bytes_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_.size(); }
  /// Empties the message, keeping its storage (a writer reuses one message per node).
  void clear() noexcept { bytes_.clear(); }

 private:
  void key(std::uint32_t field, wire_type type) {
    append_varint(bytes_, (std::uint64_t{field} << 3) | static_cast<std::uint64_t>(type));
  }
  std::string bytes_, packed_;
};

/// Appends `message` length-delimited: its size as a varint, then its bytes (the framing of a stream
/// of messages, as Chakra's files use it).
inline void append_delimited(std::string& out, const protobuf_message& message) {
  append_varint(out, message.size());
  out += message.bytes();
}

/// One field as read: its number, its wire type and its value (`number` for varints and fixed
/// values, `bytes` for length-delimited ones, a view into the reader's buffer).
struct protobuf_field {
  std::uint32_t field = 0;
  wire_type type = wire_type::varint;
  std::uint64_t number = 0;
  std::string_view bytes;

  [[nodiscard]] std::int64_t as_int() const noexcept { return static_cast<std::int64_t>(number); }
  [[nodiscard]] double as_double() const noexcept { return std::bit_cast<double>(number); }
};

/// Reads a message's fields in order (see the file comment).
///
/// ```cpp
/// aicb::protobuf_fields fields(message_bytes);
/// while (auto f = fields.next()) if (f->field == 1) id = f->number;
/// ```
class protobuf_fields {
 public:
  /// `where` names the message in errors ("rank 3's node 17").
  explicit protobuf_fields(std::string_view bytes, std::string where = "message")
      : bytes_(bytes), where_(std::move(where)) {}

  /// The next field, or false at the end.
  bool next(protobuf_field& f) {
    if (at_ >= bytes_.size()) return false;
    const std::uint64_t key = varint();
    f.field = static_cast<std::uint32_t>(key >> 3);
    if (key >> 3 == 0 || key >> 3 > 0x1fffffff) fail("field number " + std::to_string(key >> 3));
    switch (key & 7) {
      case 0:
        f.type = wire_type::varint;
        f.number = varint();
        f.bytes = {};
        return true;
      case 1:
        f.type = wire_type::fixed64;
        f.number = fixed(8);
        f.bytes = {};
        return true;
      case 2: {
        f.type = wire_type::length_delimited;
        const std::uint64_t n = varint();
        if (n > bytes_.size() - at_) fail("a length of " + std::to_string(n) + " past the end");
        f.bytes = bytes_.substr(at_, static_cast<std::size_t>(n));
        f.number = n;
        at_ += static_cast<std::size_t>(n);
        return true;
      }
      case 5:
        f.type = wire_type::fixed32;
        f.number = fixed(4);
        f.bytes = {};
        return true;
      default:
        fail("wire type " + std::to_string(key & 7) + " (groups and unknown types are not read)");
    }
  }

  /// Reads a varint at the current position (also what a packed field holds).
  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (at_ >= bytes_.size()) fail("a varint cut off by the end");
      const auto byte = static_cast<std::uint8_t>(bytes_[at_++]);
      if (shift == 63 && byte > 1) fail("a varint beyond 64 bits");
      value |= std::uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) return value;
    }
    fail("a varint longer than ten bytes");
  }
  /// Skips `n` bytes (a record a caller read through another view).
  void skip(std::size_t n) {
    if (n > bytes_.size() - at_) fail("a length of " + std::to_string(n) + " past the end");
    at_ += n;
  }
  [[nodiscard]] bool done() const noexcept { return at_ >= bytes_.size(); }
  [[nodiscard]] std::size_t offset() const noexcept { return at_; }

 private:
  std::uint64_t fixed(int n) {
    if (bytes_.size() - at_ < static_cast<std::size_t>(n)) fail("a fixed-size value cut off by the end");
    std::uint64_t value = 0;
    for (int i = 0; i < n; ++i)
      value |= std::uint64_t{static_cast<std::uint8_t>(bytes_[at_ + static_cast<std::size_t>(i)])} << (8 * i);
    at_ += static_cast<std::size_t>(n);
    return value;
  }
  [[noreturn]] void fail(const std::string& what) const {
    std::string text = where_;
    text.append(", byte ").append(std::to_string(at_)).append(": not a valid protobuf encoding (");
    text.append(what).append(")");
    AICB_THROW(error(text));
  }

  std::string_view bytes_;
  std::size_t at_ = 0;
  std::string where_;
};

/// The values of a packed repeated varint field, one by one.
template <class F>
void for_each_packed(const protobuf_field& f, F&& use, const std::string& where = "packed field") {
  if (f.type == wire_type::varint) {  // a writer may also send repeated scalars unpacked
    use(f.number);
    return;
  }
  protobuf_fields values(f.bytes, where);
  while (!values.done())
    use(values.varint());
}

AICB_END_NAMESPACE
