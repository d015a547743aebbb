// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include "chakra/chakra_checks.hpp"

#include <aicb/compute/roofline.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

TEST_CASE("chakra: every rank's trace equals its rank graph, sends meet receives, groups are listed",
          "[io][chakra]") {
  const aicb::roofline_model gpu("H100");
  for (const auto& [label, job] : aicb_test::chakra_layouts()) {
    INFO(label);
    const std::string dir = "chakra-round-trip";
    fs::remove_all(dir);
    const aicb::chakra_set_result r = aicb::write_chakra_set(dir, job, gpu);
    CHECK(r.files == job.parallel.world_size);
    CHECK(r.sends == r.recvs);
    const nlohmann::json groups = nlohmann::json::parse(aicb_test::read_all(dir + "/comm_groups.json"));
    CHECK(groups.size() == r.groups);
    const nlohmann::json manifest = nlohmann::json::parse(aicb_test::read_all(dir + "/manifest.json"));
    CHECK(manifest["schema"] == "aicb.chakra/1");
    CHECK(manifest["nodes"] == r.nodes);
    std::multiset<aicb_test::transfer_key> sends, recvs;
    std::set<std::string> named;  // every pg_name the traces use
    std::uint64_t nodes = 0;
    for (std::uint64_t rank = 0; rank < job.parallel.world_size; ++rank) {
      const std::string file = dir + "/workload." + std::to_string(rank) + ".et";
      const aicb::chakra_trace t = aicb::read_chakra_trace(aicb_test::read_all(file), file);
      CHECK(t.version == "0.0.4");
      aicb_test::check_rank_nodes(job, rank, gpu, t.nodes, groups, sends, recvs);
      for (const aicb::chakra_node& n : t.nodes)
        if (const aicb::chakra_attribute* pg = n.attr("pg_name")) named.insert(pg->text);
      nodes += t.nodes.size();
    }
    CHECK(nodes == r.nodes);
    CHECK(sends == recvs);
    if (job.parallel.pipeline_parallel > 1 || job.parallel.context_parallel > 1) CHECK(!sends.empty());
    // The file lists exactly the groups the traces name, none numbered 0 ("all ranks" to ASTRA-sim).
    std::set<std::string> listed;
    for (const auto& [id, members] : groups.items()) {
      CHECK(std::stoull(id) > 0);
      (void)members;
      listed.insert(id);
    }
    CHECK(listed == named);
  }
}

TEST_CASE("chakra: group numbers are one per group, from 1, and read back", "[io][chakra]") {
  aicb::job_spec job{aicb::presets::mixtral_8x7b,
                     {.world_size = 64,
                      .tensor_parallel = 2,
                      .pipeline_parallel = 2,
                      .expert_parallel = 4,
                      .sequence_parallel = true},
                     {.micro_batch = 1, .global_batch = 64, .seq_length = 1024}};
  const aicb::chakra_groups numbers(job);
  std::set<std::uint64_t> ids;
  std::uint64_t count = 0;
  for (std::size_t k = 0; k < aicb::enum_names<aicb::group_kind>::value.size(); ++k) {
    const auto kind = static_cast<aicb::group_kind>(k);
    for (std::uint64_t i = 0; i < numbers.grid().group_count(kind); ++i) {
      const std::uint64_t id = numbers.id({kind, i});
      CHECK(id >= 1);
      ids.insert(id);
      ++count;
      REQUIRE(numbers.group_of(id).has_value());
      CHECK(*numbers.group_of(id) == aicb::group_id{kind, i});
    }
  }
  CHECK(ids.size() == count);
  CHECK(*ids.rbegin() == count);  // dense: 1 … count
  CHECK_FALSE(numbers.group_of(0).has_value());
  CHECK_FALSE(numbers.group_of(count + 1).has_value());
}

TEST_CASE("chakra: all-gather sizes are converted to each rank's input, the rest kept", "[io][chakra]") {
  aicb::operation op;
  op.type = aicb::op_type::collective;
  op.kind = aicb::collective::all_gather;
  op.group_size = 8;
  op.size = aicb::bytes{8 * 1024};
  CHECK(aicb::chakra_comm_size(op) == 1024);
  op.kind = aicb::collective::reduce_scatter;
  CHECK(aicb::chakra_comm_size(op) == 8 * 1024);
  op.kind = aicb::collective::all_reduce;
  CHECK(aicb::chakra_comm_size(op) == 8 * 1024);
  op.kind = aicb::collective::all_to_all;
  CHECK(aicb::chakra_comm_size(op) == 8 * 1024);
  CHECK(aicb::to_chakra(aicb::collective::all_gather) == aicb::chakra_collective::all_gather);
  CHECK(aicb::to_chakra(aicb::collective::reduce_scatter) == aicb::chakra_collective::reduce_scatter);
  CHECK_FALSE(aicb::to_chakra(aicb::collective::send).has_value());
}

TEST_CASE("chakra: sub-microsecond kernels keep their total", "[io][chakra]") {
  aicb::job_spec job{
      aicb::presets::llama3_8b, {.world_size = 1}, {.micro_batch = 1, .global_batch = 1, .seq_length = 128}};
  job.model.num_layers = 2;
  const aicb::constant_model tiny(aicb::nanoseconds{300});  // every kernel 0.3 µs
  std::string et;
  const aicb::chakra_rank_summary s =
      aicb::write_chakra_rank([&](std::string_view b) { et += b; }, job, 0, tiny);
  CHECK(s.bytes == et.size());
  const aicb::chakra_trace t = aicb::read_chakra_trace(et, "rank 0");
  std::uint64_t total = 0, zero = 0;
  for (const aicb::chakra_node& n : t.nodes)
    if (n.type == aicb::chakra_node_type::compute) {
      total += n.duration_micros;
      zero += n.duration_micros == 0;
      CHECK(n.duration_micros <= 1);
    }
  CHECK(total == static_cast<std::uint64_t>(std::llround(0.3 * static_cast<double>(s.compute))));
  CHECK(zero > 0);  // rounded one by one, every kernel would be 0 µs and the rank would compute nothing
  CHECK(s.compute_us == total);
}

TEST_CASE("chakra: a slow rank's computations take its factor longer, the others' unchanged",
          "[io][chakra]") {
  const aicb::roofline_model gpu("H100");
  const aicb::job_spec job = aicb_test::chakra_layouts().front().second;  // 8 ranks
  const auto compute_us = [](const std::string& dir, std::uint64_t rank) {
    const std::string file = dir + "/workload." + std::to_string(rank) + ".et";
    std::uint64_t total = 0;
    for (const aicb::chakra_node& n : aicb::read_chakra_trace(aicb_test::read_all(file), file).nodes)
      total += n.duration_micros;
    return total;
  };
  fs::remove_all("chakra-pace-base");
  fs::remove_all("chakra-pace-slow");
  (void)aicb::write_chakra_set("chakra-pace-base", job, gpu);
  (void)aicb::write_chakra_set("chakra-pace-slow", job, gpu, {.compute_pace = {{5, 1.5}}});
  for (std::uint64_t rank = 0; rank < job.parallel.world_size; ++rank) {
    INFO("rank " << rank);
    const auto base = static_cast<double>(compute_us("chakra-pace-base", rank));
    const auto slow = static_cast<double>(compute_us("chakra-pace-slow", rank));
    CHECK(slow == Approx(rank == 5 ? 1.5 * base : base).margin(1.0));  // whole microseconds
  }
  CHECK_THROWS_WITH(aicb::write_chakra_set("chakra-pace-bad", job, gpu, {.compute_pace = {{8, 2.0}}}),
                    Catch::Contains("below world_size (8)"));
  CHECK_THROWS_WITH(aicb::write_chakra_set("chakra-pace-bad", job, gpu, {.compute_pace = {{1, 0.5}}}),
                    Catch::Contains("at least 1"));
  CHECK_FALSE(fs::exists("chakra-pace-bad"));
  fs::remove_all("chakra-pace-base");
  fs::remove_all("chakra-pace-slow");
}

TEST_CASE("chakra: the reader refuses damaged files, naming the record", "[io][chakra]") {
  aicb::job_spec job{
      aicb::presets::llama3_8b, {.world_size = 1}, {.micro_batch = 1, .global_batch = 1, .seq_length = 128}};
  job.model.num_layers = 1;
  std::string et;
  (void)aicb::write_chakra_rank([&](std::string_view b) { et += b; }, job, 0, aicb::constant_model{});
  CHECK_THROWS_WITH(aicb::read_chakra_trace(et.substr(0, et.size() - 3), "x.et"),
                    Catch::Contains("x.et") && Catch::Contains("past the end"));
  CHECK_THROWS_WITH(aicb::read_chakra_trace("", "x.et"), Catch::Contains("empty"));
  // A whole, well-framed record whose only field has wire type 7 (key 0x0f): damaged contents, not a cut.
  const std::string bad = et + std::string("\x02\x0f\x00", 3);
  CHECK_THROWS(aicb::read_chakra_trace(bad, "x.et"));
}

namespace {

// A compute model that fails on its n-th call: a fault midway through writing a set.
class failing_model final : public aicb::compute_model {
 public:
  explicit failing_model(int n) : left_(n) {}
  [[nodiscard]] aicb::nanoseconds duration(const aicb::compute_op&) const override {
    if (--left_ == 0) throw std::runtime_error("injected fault");
    return aicb::nanoseconds{1000};
  }
  [[nodiscard]] std::string provenance() const override { return "failing"; }

 private:
  mutable int left_;
};

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("chakra: a set lands whole or not at all", "[io][chakra]") {
  aicb::job_spec job{aicb::presets::llama3_8b,
                     {.world_size = 4, .pipeline_parallel = 2},
                     {.micro_batch = 1, .global_batch = 4, .seq_length = 256}};
  job.model.num_layers = 2;
  const fs::path area = "chakra-atomic";
  fs::remove_all(area);
  fs::create_directories(area);
  const std::string dir = (area / "set").string();

  // A fault in the third rank's file: nothing under the name, no temporary left.
  CHECK_THROWS_WITH(aicb::write_chakra_set(dir, job, failing_model(200)), "injected fault");
  CHECK_FALSE(fs::exists(dir));
  CHECK(entries(area) == 0);

  // A complete set, then a second one over it: replaced whole.
  aicb::write_chakra_set(dir, job, aicb::constant_model{});
  CHECK(fs::exists(fs::path(dir) / "workload.3.et"));
  aicb::write_chakra_set(dir, job, aicb::constant_model{}, {.name = "again", .ranks = {1}});
  CHECK(fs::exists(fs::path(dir) / "again.1.et"));
  CHECK_FALSE(fs::exists(fs::path(dir) / "workload.3.et"));
  CHECK(entries(area) == 1);

  // A failure over an existing set leaves the existing set as it was.
  CHECK_THROWS(aicb::write_chakra_set(dir, job, failing_model(50)));
  CHECK(fs::exists(fs::path(dir) / "again.1.et"));
  CHECK(entries(area) == 1);

  // A directory with files aicb did not write is refused, untouched.
  const fs::path foreign = area / "foreign";
  fs::create_directories(foreign);
  { std::ofstream(foreign / "notes.txt") << "mine"; }
  CHECK_THROWS_WITH(aicb::write_chakra_set(foreign.string(), job, aicb::constant_model{}),
                    Catch::Contains("holds files aicb did not write"));
  CHECK(fs::exists(foreign / "notes.txt"));

  // A missing parent, a place nothing can be created, a file in the way, a bad rank.
  CHECK_THROWS_WITH(aicb::write_chakra_set((area / "no/such/dir").string(), job, aicb::constant_model{}),
                    Catch::Contains("does not exist"));
  CHECK_THROWS_WITH(aicb::write_chakra_set("/proc/aicb-chakra-test", job, aicb::constant_model{}),
                    Catch::Contains("cannot create"));
  { std::ofstream(area / "file") << "x"; }
  CHECK_THROWS_WITH(aicb::write_chakra_set((area / "file").string(), job, aicb::constant_model{}),
                    Catch::Contains("not a directory"));
  CHECK_THROWS_WITH(aicb::write_chakra_set(dir, job, aicb::constant_model{}, {.ranks = {4}}),
                    Catch::Contains("ranks = 4"));
  CHECK_THROWS_WITH(aicb::write_chakra_set(dir, job, aicb::constant_model{}, {.ranks = {1, 1}}),
                    Catch::Contains("twice"));
  CHECK_THROWS_WITH(aicb::write_chakra_set(dir, job, aicb::constant_model{}, {.name = "a/b", .ranks = {}}),
                    Catch::Contains("plain file name"));
  CHECK(entries(area) == 3);  // set, foreign, file: no temporaries
}

TEST_CASE("chakra: only a set aicb wrote, unchanged, is ever replaced", "[io][chakra][data-loss]") {
  aicb::job_spec job{aicb::presets::llama3_8b,
                     {.world_size = 4, .pipeline_parallel = 2},
                     {.micro_batch = 1, .global_batch = 4, .seq_length = 256}};
  job.model.num_layers = 2;
  const fs::path area = "chakra-replace";
  fs::remove_all(area);
  fs::create_directories(area);
  const auto write = [&](const fs::path& dir, const aicb::chakra_set_options& o = {}) {
    return aicb::write_chakra_set(dir.string(), job, aicb::constant_model{}, o);
  };

  // A project that merely holds a file named manifest.json: refused, every file kept.
  const fs::path project = area / "project";
  fs::create_directories(project / "src");
  fs::create_directories(project / ".git");
  { std::ofstream(project / "manifest.json") << "{\"manifest_version\":3}"; }
  { std::ofstream(project / "src" / "main.js") << "x"; }
  CHECK_THROWS_WITH(write(project), Catch::Contains("holds files aicb did not write") &&
                                        Catch::Contains("not the manifest of an aicb.chakra/1 set"));
  CHECK(fs::exists(project / "src" / "main.js"));
  CHECK(fs::exists(project / ".git"));

  // A real set a user added notes to: refused, naming the file.
  const fs::path noted = area / "noted";
  write(noted);
  { std::ofstream(noted / "notes.txt") << "mine"; }
  CHECK_THROWS_WITH(write(noted), Catch::Contains("\"notes.txt\" is not a file the manifest lists"));
  CHECK(fs::exists(noted / "notes.txt"));
  // ... or a subdirectory, or a trace of a rank the manifest does not list, or a missing trace.
  fs::remove(noted / "notes.txt");
  fs::create_directories(noted / "more");
  CHECK_THROWS_WITH(write(noted), Catch::Contains("\"more\" is not a file the set holds"));
  fs::remove(noted / "more");
  write(noted, {.name = "workload", .ranks = {1, 2}});
  fs::copy_file(noted / "workload.1.et", noted / "workload.3.et");
  CHECK_THROWS_WITH(write(noted), Catch::Contains("\"workload.3.et\" is not a file the manifest lists"));
  fs::remove(noted / "workload.3.et");
  fs::remove(noted / "workload.2.et");
  CHECK_THROWS_WITH(write(noted), Catch::Contains("files the manifest lists are missing"));
  fs::copy_file(noted / "workload.1.et", noted / "workload.2.et");
  // Restored to what was written: replaced.
  CHECK(write(noted).files == 4);
  CHECK(fs::exists(noted / "workload.3.et"));

  // A manifest edited so that its prefix is no longer a quoted name (here its closing quote lost):
  // refused, although the traces still carry the prefix it names without the quote.
  {
    std::string text = aicb_test::read_all((noted / "manifest.json").string());
    const std::string quoted = "\"workload\": \"workload\",";
    REQUIRE(text.find(quoted) != std::string::npos);
    text.replace(text.find(quoted), quoted.size(), "\"workload\": \"workload#,");
    std::ofstream(noted / "manifest.json", std::ios::trunc) << text;
  }
  CHECK_THROWS_WITH(write(noted), Catch::Contains("lacks the set's prefix"));
  CHECK(fs::exists(noted / "workload.3.et"));

  // A symbolic link to a set is neither followed nor replaced.
  fs::create_directory_symlink("noted", area / "link");
  CHECK_THROWS_WITH(write(area / "link"), Catch::Contains("symbolic link"));
  CHECK(fs::is_symlink(fs::symlink_status(area / "link")));
  CHECK(fs::exists(noted / "workload.3.et"));
}

TEST_CASE("chakra: a set's size is known before it is written, and bounded", "[io][chakra][disk]") {
  aicb::job_spec job{aicb::presets::llama3_8b,
                     {.world_size = 8, .tensor_parallel = 2, .pipeline_parallel = 2},
                     {.micro_batch = 1, .global_batch = 8, .seq_length = 256}};
  job.model.num_layers = 2;
  const aicb::chakra_groups numbers(job);
  const aicb::constant_model compute;
  // The estimate against what is written: every rank of a stage is the same size, so it is close.
  const std::string dir = "chakra-estimate";
  fs::remove_all(dir);
  for (const std::uint64_t iterations : {1, 3}) {
    const aicb::chakra_set_options o{.schedule = {.iterations = iterations}};
    const std::uint64_t estimate = aicb::estimate_chakra_set_bytes(job, numbers, compute, o);
    const aicb::chakra_set_result r = aicb::write_chakra_set(dir, job, compute, o);
    std::uint64_t on_disk = 0;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".et" || e.path().filename() == "comm_groups.json")
        on_disk += e.file_size();
    INFO("iterations " << iterations << ": estimate " << estimate << ", written " << on_disk);
    CHECK(r.files == 8);
    CHECK(static_cast<double>(estimate) >= 0.8 * static_cast<double>(on_disk));
    CHECK(static_cast<double>(estimate) <= 1.25 * static_cast<double>(on_disk));
  }
  // An iteration count no disk holds is refused before anything is written, at once.
  fs::remove_all(dir);
  CHECK_THROWS_AS(aicb::write_chakra_set(dir, job, compute, {.schedule = {.iterations = ~std::uint64_t{0}}}),
                  aicb::config_error);
  CHECK_FALSE(fs::exists(dir));
  // A world of 2^31 - 1 ranks, one of them written: the estimate holds one rank, not the world;
  // the group file of its data-parallel group of every rank is counted (about 25 GB).
  aicb::job_spec huge{aicb::presets::llama3_8b,
                      {.world_size = (1ULL << 31) - 1},
                      {.micro_batch = 1, .global_batch = (1ULL << 31) - 1, .seq_length = 256}};
  huge.model.num_layers = 1;
  const std::uint64_t big =
      aicb::estimate_chakra_set_bytes(huge, aicb::chakra_groups(huge), compute, {.ranks = {0}});
  CHECK(big > (std::uint64_t{1} << 34));
}

TEST_CASE("atomic outputs: temporaries of killed writers are removed, others kept",
          "[io][atomic][data-loss]") {
  const fs::path area = "stale-temporaries";
  fs::remove_all(area);
  fs::create_directories(area);
  // A process that has ended: its PID names no running process.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  int status = 0;
  ::waitpid(child, &status, 0);
  const std::string dead = std::to_string(child), alive = std::to_string(::getpid());
  const fs::path stale_dir = area / (".set.aicb-dir-" + dead + "-0");
  const fs::path live_dir = area / (".set.aicb-dir-" + alive + "-999999");
  const fs::path other = area / (".settings.aicb-dir-" + dead + "-0");  // another name's
  const fs::path stale_file = area / (".out.txt.aicb-tmp-" + dead + "-3");
  const fs::path lookalike = area / (".out.txt.aicb-tmp-" + dead + "-x");  // not a name aicb gives
  for (const fs::path& d : {stale_dir, live_dir, other})
    fs::create_directories(d / "inside");
  for (const fs::path& f : {stale_file, lookalike})
    std::ofstream(f) << "partial";

  aicb::job_spec job{aicb::presets::llama3_8b,
                     {.world_size = 2, .pipeline_parallel = 2},
                     {.micro_batch = 1, .global_batch = 2, .seq_length = 256}};
  job.model.num_layers = 2;
  aicb::write_chakra_set((area / "set").string(), job, aicb::constant_model{});
  CHECK_FALSE(fs::exists(stale_dir));
  CHECK(fs::exists(live_dir / "inside"));
  CHECK(fs::exists(other / "inside"));
  aicb::write_file_atomically((area / "out.txt").string(), "done\n");
  CHECK_FALSE(fs::exists(stale_file));
  CHECK(fs::exists(lookalike));
}

TEST_CASE("chakra: a serving step's traces, every GPU's step node for node", "[io][chakra][inference]") {
  const aicb::serving_spec s{.phase = aicb::inference_phase::decode,
                             .batch = 16,
                             .context = 1024,
                             .tensor_parallel = 2,
                             .attention_data_parallel = 2,
                             .expert_parallel = 4};
  aicb::model_spec model = aicb::presets::qwen3_30b_a3b;
  model.num_layers = 3;
  const aicb::roofline_model gpu("H100");
  const std::string dir = "chakra-inference";
  fs::remove_all(dir);
  const aicb::chakra_set_result r = aicb::write_inference_chakra_set(dir, model, s, gpu);
  CHECK(r.files == 4);
  const nlohmann::json groups = nlohmann::json::parse(aicb_test::read_all(dir + "/comm_groups.json"));
  std::map<std::string, std::vector<std::vector<std::uint64_t>>> sequence;  // pg_name -> each member's sizes
  for (std::uint64_t rank = 0; rank < 4; ++rank) {
    const std::string file = dir + "/workload." + std::to_string(rank) + ".et";
    const aicb::chakra_trace t = aicb::read_chakra_trace(aicb_test::read_all(file), file);
    const aicb::inference_step step(model, s, rank);
    REQUIRE(t.nodes.size() == step.operations().size());
    std::map<std::string, std::vector<std::uint64_t>> mine;
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const aicb::operation& op = step.operations()[i];
      const aicb::chakra_node& n = t.nodes[i];
      CHECK(n.name == op.name);
      if (op.type != aicb::op_type::collective) continue;
      const std::string pg = n.attr("pg_name")->text;
      REQUIRE(groups.contains(pg));
      const auto members = groups[pg].get<std::vector<std::uint64_t>>();
      CHECK(std::find(members.begin(), members.end(), rank) != members.end());
      CHECK(members.size() == op.group_size);
      CHECK(n.attr("comm_size")->number == aicb::chakra_comm_size(op));
      mine[pg].push_back(n.attr("comm_size")->number);
    }
    for (auto& [pg, sizes] : mine)
      sequence[pg].push_back(sizes);
  }
  // Every member of a group calls its collectives in the same order with the same sizes.
  for (const auto& [pg, members] : sequence) {
    INFO("group " << pg);
    CHECK(members.size() == groups[pg].size());
    for (const auto& sizes : members)
      CHECK(sizes == members.front());
  }
}
