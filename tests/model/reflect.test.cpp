// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/batch.hpp>
#include <aicb/model/parallel.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/model/spec.hpp>

#include <boost/hana/at_key.hpp>
#include <boost/hana/contains.hpp>
#include <boost/hana/keys.hpp>
#include <boost/hana/length.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <string>

TEST_CASE("reflect: field names come from the one definition, in order, each with help", "[model][reflect]") {
  const auto names = aicb::field_names<aicb::model_spec>();
  REQUIRE(names.size() >= 30);
  CHECK(names.front() == "name");
  CHECK(names[1] == "hidden_size");
  for (auto n : names)
    CHECK_FALSE(aicb::model_spec::help(n).empty());
  for (auto n : aicb::field_names<aicb::parallel_spec>())
    CHECK_FALSE(aicb::parallel_spec::help(n).empty());
  for (auto n : aicb::field_names<aicb::batch_spec>())
    CHECK_FALSE(aicb::batch_spec::help(n).empty());
}

TEST_CASE("reflect: no field name is shared between descriptors (flags stay unambiguous)",
          "[model][reflect]") {
  std::set<std::string_view> all;
  std::size_t count = 0;
  for (auto n : aicb::field_names<aicb::model_spec>())
    all.insert(n), ++count;
  for (auto n : aicb::field_names<aicb::parallel_spec>())
    all.insert(n), ++count;
  for (auto n : aicb::field_names<aicb::batch_spec>())
    all.insert(n), ++count;
  CHECK(all.size() == count);
}

TEST_CASE("reflect: printing then parsing every field reproduces the descriptor", "[model][reflect]") {
  for (const aicb::preset& p : aicb::all_presets) {
    aicb::model_spec copy;
    for (const auto& [key, value] : aicb::to_key_values(p.model))
      REQUIRE(aicb::set_field(copy, key, value));
    CHECK(copy == p.model);
  }
  aicb::parallel_spec layout{.world_size = 64,
                             .tensor_parallel = 4,
                             .sequence_parallel = true,
                             .recompute = aicb::recompute_kind::selective};
  aicb::parallel_spec copy;
  for (const auto& [key, value] : aicb::to_key_values(layout))
    aicb::set_field(copy, key, value);
  CHECK(copy == layout);
}

TEST_CASE("reflect: set_field parses each kind of value and rejects bad text naming the field",
          "[model][reflect]") {
  aicb::model_spec m;
  CHECK(aicb::set_field(m, "hidden_size", "5120"));
  CHECK(m.hidden_size == 5120);
  CHECK(aicb::set_field(m, "activation", "swiglu"));
  CHECK(m.activation == aicb::activation_kind::swiglu);
  CHECK(aicb::set_field(m, "qk_norm", "true"));
  CHECK(m.qk_norm);
  CHECK(aicb::set_field(m, "moe_capacity_factor", "1.25"));
  CHECK(m.moe_capacity_factor == 1.25);
  CHECK(aicb::set_field(m, "name", "my-model"));
  CHECK(m.name.view() == "my-model");
  CHECK_FALSE(aicb::set_field(m, "hiden_size", "1"));
  CHECK_THROWS_WITH(aicb::set_field(m, "hidden_size", "12x"),
                    "hidden_size = 12x: expected a non-negative integer");
  CHECK_THROWS_WITH(aicb::set_field(m, "hidden_size", "-1"),
                    "hidden_size = -1: expected a non-negative integer");
  CHECK_THROWS_WITH(aicb::set_field(m, "activation", "relu"),
                    "activation = relu: expected gelu | swiglu | squared_relu");
  CHECK_THROWS_WITH(aicb::set_field(m, "qk_norm", "maybe"), "qk_norm = maybe: expected true or false");
  CHECK_THROWS_AS(aicb::set_field(m, "moe_capacity_factor", "nan"), aicb::config_error);
  aicb::batch_spec b;
  CHECK(aicb::set_field(b, "dtype", "fp16"));
  CHECK(b.dtype == aicb::dtype::fp16);
  CHECK(aicb::format_value(b.dtype) == "fp16");
}

TEST_CASE("reflect: the descriptors are Hana Structs, their keys known at compile time", "[model][reflect]") {
  namespace hana = boost::hana;
  static_assert(hana::contains(hana::keys(aicb::model_spec{}), BOOST_HANA_STRING("hidden_size")));
  static_assert(!hana::contains(hana::keys(aicb::model_spec{}), BOOST_HANA_STRING("tensor_parallel")));
  static_assert(aicb::field_names<aicb::parallel_spec>()[1] == "tensor_parallel");
  static_assert(hana::length(hana::keys(aicb::job_spec{})) == hana::size_c<3>);
  constexpr aicb::model_spec m{.hidden_size = 4096};
  static_assert(hana::at_key(m, BOOST_HANA_STRING("hidden_size")) == 4096);
  static_assert(hana::at_key(m, BOOST_HANA_STRING("num_layers")) == 0);
}

TEST_CASE("reflect: differences name each changed field by its path, with both values", "[model][reflect]") {
  aicb::job_spec before{aicb::model_spec{.hidden_size = 4096, .num_layers = 32}, {.world_size = 8}, {}};
  CHECK(aicb::differences(before, before).empty());
  aicb::job_spec after = before;
  after.model.num_layers = 40;
  after.parallel.sequence_parallel = true;
  after.batch.seq_length = 8192;
  const auto found = aicb::differences(before, after);
  REQUIRE(found.size() == 3);
  CHECK(found[0].field == "model.num_layers");
  CHECK(found[0].before == "32");
  CHECK(found[0].after == "40");
  CHECK(found[1].field == "parallel.sequence_parallel");
  CHECK(found[1].after == "true");
  CHECK(found[2].field == "batch.seq_length");
  CHECK(found[2].after == "8192");
  const auto models = aicb::differences(before.model, after.model);
  REQUIRE(models.size() == 1);
  CHECK(models[0].field == "num_layers");
}

TEST_CASE("reflect: a job is written as JSON with its descriptors nested", "[model][reflect]") {
  aicb::json_writer w;
  aicb::write_json(w, aicb::job_spec{aicb::model_spec{.hidden_size = 4096}, {.world_size = 8}, {}});
  const std::string text = w.str();
  CHECK(text.find("\"model\": {") != std::string::npos);
  CHECK(text.find("\"hidden_size\": 4096") != std::string::npos);
  CHECK(text.find("\"parallel\": {") != std::string::npos);
  CHECK(text.find("\"world_size\": 8") != std::string::npos);
  CHECK(text.find("\"batch\": {") != std::string::npos);
}
