// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A Chakra set read back for replay gives every rank its own operations as the schedule made them:
// types, collectives, groups, sizes (all-gathers back to the gathered size), peers, tags and
// dependencies, computation times from the trace; sets it cannot replay are refused, naming why.
#include "../io/chakra/chakra_checks.hpp"

#include <aicb/compute/roofline.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/run/saved_workload.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

void write_set(const std::string& dir, const aicb::job_spec& job, const aicb::compute_model& compute) {
  fs::remove_all(dir);
  (void)aicb::write_chakra_set(dir, job, compute);
}

}  // namespace

TEST_CASE("saved workload: every rank's operations come back from its Chakra trace", "[run]") {
  const aicb::roofline_model gpu("H100");
  for (const auto& [label, job] : aicb_test::chakra_layouts()) {
    INFO(label);
    const std::string dir = "saved-workload-set";
    write_set(dir, job, gpu);
    for (std::uint64_t rank = 0; rank < job.parallel.world_size; ++rank) {
      INFO("rank " << rank);
      const aicb::saved_rank saved = aicb::load_chakra_rank(dir, rank);
      CHECK(saved.job.parallel == job.parallel);
      CHECK(aicb::resolve(saved.job.model) == aicb::resolve(job.model));
      std::size_t i = 0;
      for (const aicb::operation& op : aicb::rank_schedule(job, rank)) {
        REQUIRE(i < saved.ops.size());
        const aicb::operation& back = saved.ops[i];
        CHECK(back.type == op.type);
        CHECK(back.after_count == op.after_count);
        for (std::uint8_t d = 0; d < op.after_count; ++d)
          CHECK(back.after[d] == op.after[d]);
        if (op.type == aicb::op_type::compute) {
          // The trace's microseconds: within a microsecond of the model's duration.
          const double model_us = static_cast<double>(gpu.duration(op.compute).count()) / 1000;
          CHECK(static_cast<double>(saved.durations[i].count()) / 1000 == Approx(model_us).margin(1.0));
        } else {
          CHECK(back.size == op.size);  // an all-gather's gathered size again
          if (op.type == aicb::op_type::collective) {
            CHECK(back.kind == op.kind);
            CHECK(back.group == op.group);
            CHECK(back.group_size == op.group_size);
          } else {
            CHECK(back.peer == op.peer);
            CHECK(back.tag == op.tag);
          }
        }
        ++i;
      }
      CHECK(i == saved.ops.size());
    }
    fs::remove_all(dir);
  }
}

TEST_CASE("saved workload: sets that cannot be replayed are refused, naming why", "[run]") {
  const aicb::job_spec job = aicb_test::chakra_layouts().front().second;
  const aicb::constant_model compute;
  const std::string dir = "saved-workload-bad";
  CHECK_THROWS_AS(aicb::load_chakra_rank("no-such-directory", 0), aicb::io_error);
  // A rank the set does not hold.
  write_set(dir, job, compute);
  CHECK_THROWS_AS(aicb::load_chakra_rank(dir, job.parallel.world_size), aicb::io_error);
  // A manifest whose groups do not name the traces' groups; one without the job (a serving step's
  // set): nothing to build the groups from.
  nlohmann::json m = nlohmann::json::parse(aicb_test::read_all(dir + "/manifest.json"));
  m["groups"] = nlohmann::json::object();
  std::ofstream(dir + "/manifest.json") << m.dump();
  CHECK_THROWS_WITH(aicb::load_chakra_rank(dir, 0), Catch::Contains("is not in manifest.json"));
  m.erase("job");
  std::ofstream(dir + "/manifest.json") << m.dump();
  CHECK_THROWS_WITH(aicb::load_chakra_rank(dir, 0), Catch::Contains("with the job and its groups"));
  fs::remove_all(dir);
}
