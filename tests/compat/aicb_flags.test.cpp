// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compat/aicb_flags.hpp>
#include <aicb/model/batch.hpp>
#include <aicb/model/parallel.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/model/spec.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

TEST_CASE("aicb flags: every flag takes aicb's own spelling, and sets a field that exists",
          "[compat][flags]") {
  std::set<std::string_view> fields;
  for (auto f : aicb::field_names<aicb::model_spec>())
    fields.insert(f);
  for (auto f : aicb::field_names<aicb::parallel_spec>())
    fields.insert(f);
  for (auto f : aicb::field_names<aicb::batch_spec>())
    fields.insert(f);
  std::set<std::string_view> names;
  for (const aicb::aicb_flag& flag : aicb::aicb_flags) {
    INFO(flag.name);
    CHECK(names.insert(flag.name).second);  // one entry per flag
    // Appended, not `literal + string`: g++ 12 warns falsely (-Wrestrict, PR 105329) on the latter.
    std::string own(",--"), spellings(",");
    own.append(flag.name).append(",");
    spellings.append(flag.spellings).append(",");
    CHECK(spellings.find(own) != std::string::npos);
    if (!flag.field.empty()) CHECK(fields.count(flag.field) == 1);
    CHECK_FALSE(flag.help.empty());
  }
  CHECK(aicb::aicb_flag_values::find("world_size") != nullptr);
  CHECK(aicb::aicb_flag_values::find("world-size") == nullptr);  // a spelling, not a name
}

TEST_CASE("aicb flags: values are checked where they are read, naming the flag", "[compat][flags]") {
  aicb::aicb_flag_values f;
  CHECK_THROWS_WITH(f.set("wrold_size", "8"), Catch::Contains("wrold_size") && Catch::Contains("aicb's"));
  f.set("world_size", "-8");
  CHECK_THROWS_WITH(f.number("world_size"), Catch::Contains("world_size") && Catch::Contains("-8"));
  f.set("world_size", "8");
  CHECK(f.number("world_size") == 8u);
  CHECK(f.optional_number("global_batch") == std::nullopt);
  f.set("swiglu", "false");
  CHECK(f.given("swiglu"));
  CHECK_FALSE(f.on("swiglu"));
  f.set("swiglu", "true");
  CHECK(f.on("swiglu"));
  f.set("moe_enable", "");  // empty: not given
  CHECK_FALSE(f.given("moe_enable"));
}

TEST_CASE("aicb flags: aicb's arguments, its defaults for the rest, its script's presets with -m",
          "[compat][flags]") {
  std::vector<std::string> notes;
  const aicb::aicb_args defaults = aicb::aicb_args_from_flags({}, "", notes);
  const aicb::aicb_args aicb_defaults{};
  CHECK(defaults.world_size == aicb_defaults.world_size);
  CHECK(defaults.global_batch == aicb_defaults.global_batch);
  CHECK(defaults.num_layers == aicb_defaults.num_layers);
  CHECK(notes.empty());

  aicb::aicb_flag_values f;
  f.set("world_size", "16");
  f.set("tensor_model_parallel_size", "2");
  f.set("num_layers", "10");
  f.set("enable_sequence_parallel", "true");
  const aicb::aicb_args plain = aicb::aicb_args_from_flags(f, "", notes);
  CHECK(plain.world_size == 16u);
  CHECK(plain.tensor_model_parallel_size == 2u);
  CHECK(plain.num_layers == 10u);
  CHECK(plain.enable_sequence_parallel);
  // With -m 7 the script's preset wins over --num_layers, and says so.
  const aicb::aicb_args scripted = aicb::aicb_args_from_flags(f, "7", notes);
  CHECK(scripted.num_layers != 10u);
  const std::string said = "num_layers 10 -> " + std::to_string(scripted.num_layers);
  CHECK(std::any_of(notes.begin(), notes.end(),
                    [&](const std::string& n) { return n.find(said) != std::string::npos; }));
  // The CSV script reads the GPU count from nodes x GPUs per node, and the pipeline stage from --pp_rank.
  f.set("pp_rank", "1");
  f.set("pipeline_model_parallel", "2");
  const aicb::aicb_args csv = aicb::megatron_args_from_flags(f, "7", 2, 8, notes);
  CHECK(csv.world_size == 16u);
  CHECK(csv.pp_rank == 1);
}
