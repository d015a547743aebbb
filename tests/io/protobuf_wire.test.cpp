// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/io/protobuf_wire.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

std::string hex(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

}  // namespace

TEST_CASE("protobuf wire: the encodings of protobuf's documentation", "[io][protobuf]") {
  std::string v;
  aicb::append_varint(v, 1);
  CHECK(hex(v) == "01");
  v.clear();
  aicb::append_varint(v, 150);  // the documentation's example: 96 01
  CHECK(hex(v) == "9601");
  v.clear();
  aicb::append_varint(v, 300);
  CHECK(hex(v) == "ac02");

  aicb::protobuf_message m;
  m.add_uint(1, 150);  // key 08
  CHECK(hex(m.bytes()) == "089601");
  m.clear();
  m.add_string(2, "testing");  // key 12, length 07
  CHECK(hex(m.bytes()) == "120774657374696e67");
  m.clear();
  m.add_int(9, -2);  // a negative int64: ten bytes of two's complement
  CHECK(hex(m.bytes()) == "48feffffffffffffffff01");
  m.clear();
  m.add_bool(27, false);  // a oneof member written even when zero: key d8 01, value 00
  CHECK(hex(m.bytes()) == "d80100");
  m.clear();
  m.add_packed(4, std::vector<std::uint64_t>{3, 270, 86942});  // the documentation's packed example
  CHECK(hex(m.bytes()) == "2206038e029ea705");
  m.clear();
  m.add_packed(4, std::vector<std::uint64_t>{});  // nothing for an empty repeated field
  CHECK(m.bytes().empty());
  m.add_double(3, 1.0);
  CHECK(hex(m.bytes()) == "19000000000000f03f");

  aicb::protobuf_message outer, inner;
  inner.add_uint(1, 150);
  outer.add_message(3, inner);
  CHECK(hex(outer.bytes()) == "1a03089601");
  std::string stream;
  aicb::append_delimited(stream, outer);
  CHECK(hex(stream) == "051a03089601");
}

TEST_CASE("protobuf wire: the reader gives back what the writer wrote", "[io][protobuf]") {
  aicb::protobuf_message m;
  m.add_uint(1, ~std::uint64_t{0}).add_string(2, "name").add_int(9, -5).add_double(3, 2.5);
  m.add_packed(5, std::vector<std::uint64_t>{0, 1, 1u << 20});
  aicb::protobuf_fields fields(m.bytes());
  aicb::protobuf_field f;
  REQUIRE(fields.next(f));
  CHECK(f.field == 1);
  CHECK(f.number == ~std::uint64_t{0});
  REQUIRE(fields.next(f));
  CHECK(f.field == 2);
  CHECK(f.bytes == "name");
  REQUIRE(fields.next(f));
  CHECK(f.as_int() == -5);
  REQUIRE(fields.next(f));
  CHECK(f.type == aicb::wire_type::fixed64);
  CHECK(f.as_double() == 2.5);
  REQUIRE(fields.next(f));
  std::vector<std::uint64_t> packed;
  aicb::for_each_packed(f, [&](std::uint64_t x) { packed.push_back(x); });
  CHECK(packed == std::vector<std::uint64_t>{0, 1, 1u << 20});
  CHECK_FALSE(fields.next(f));
}

TEST_CASE("protobuf wire: what is not well formed is refused, never read past", "[io][protobuf]") {
  const auto refused = [](const std::string& bytes, const std::string& says) {
    aicb::protobuf_fields fields(bytes, "test");
    aicb::protobuf_field f;
    CHECK_THROWS_WITH(
        [&] {
          while (fields.next(f)) {
          }
        }(),
        Catch::Contains(says) && Catch::Contains("test, byte"));
  };
  refused(std::string("\x08", 1), "cut off");          // a key without its value
  refused(std::string("\x08\xff\xff", 3), "cut off");  // a varint without its end
  refused(std::string("\x12\x05"
                      "ab",
                      4),
          "past the end");                         // a string longer than the rest
  refused(std::string("\x0b", 1), "wire type 3");  // a group
  refused(std::string("\x00\x01", 2), "field number 0");
  refused(std::string("\x08") + std::string(10, '\xff') + "\x01", "varint");  // more than ten bytes
  refused(std::string("\x09\x01\x02", 3), "fixed-size value cut off");
}
