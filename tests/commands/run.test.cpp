// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb run` as library calls: sizes parsed with their units, requests refused by field, what a
// rank replays (a sweep's sizes, a job's schedule), and a replay over one in-process rank that
// writes the JSON summary, aicb's result CSV and a timeline. (Many ranks: tests/tools/run_cli.sh.)
#include <aicb/commands/run.hpp>

#include "../loopback_transport.hpp"
#include "../text_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

TEST_CASE("run: sizes with units, and ranges of them", "[commands][run]") {
  CHECK(aicb::parse_byte_count("64MiB", "sizes") == 64ull << 20);
  CHECK(aicb::parse_byte_count("1.5K", "sizes") == 1536u);
  CHECK(aicb::parse_byte_count("4096", "sizes") == 4096u);
  CHECK_THROWS_WITH(aicb::parse_byte_count("0", "sizes"), Catch::Contains("sizes = 0"));
  CHECK_THROWS_WITH(aicb::parse_byte_count("3XB", "max_buffer"), Catch::Contains("max_buffer = 3XB"));
  CHECK_THROWS_WITH(aicb::parse_byte_count("2000000GiB", "sizes"), Catch::Contains("1 PB"));
  CHECK_THROWS_WITH(aicb::parse_byte_count("lots", "sizes"), Catch::Contains("expected a size"));
  const aicb::size_range r = aicb::parse_size_range("1KiB:8KiB", "sizes");
  CHECK(r.low == 1024u);
  CHECK(r.high == 8192u);
  CHECK(aicb::parse_size_range("2MiB", "sizes").high == 2u << 20);
  CHECK_THROWS_WITH(aicb::parse_size_range("8KiB:1KiB", "sizes"), Catch::Contains("MIN must not exceed MAX"));
}

TEST_CASE("run: a request no replay can mean is refused by field", "[commands][run]") {
  aicb::run_request r;
  r.timeout_s = 0;
  CHECK_THROWS_WITH(aicb::validate(r), Catch::Contains("timeout"));
  r = {};
  r.compute_scale = -1;
  CHECK_THROWS_WITH(aicb::validate(r), Catch::Contains("compute_scale"));
  r = {};
  r.repeat = 0;
  CHECK_THROWS_WITH(aicb::validate(r), Catch::Contains("repeat = 0"));
  r = {};
  r.sweep = {aicb::collective::broadcast};
  CHECK_THROWS_WITH(aicb::validate(r), Catch::Contains("sweep = broadcast"));
  r = {};
  r.chakra = "saved";
  r.job.model = "llama3-8b";
  CHECK_THROWS_WITH(aicb::validate(r), Catch::Contains("give no model or job flags with --chakra (--model)"));
  r.job = {};
  r.csv = "out.csv";
  CHECK_THROWS_WITH(aicb::validate(r), Catch::Contains("not saved sets"));
  CHECK_NOTHROW(aicb::validate(aicb::run_request{}));
}

TEST_CASE("run: what a rank replays — a sweep's sizes, a job's schedule", "[commands][run]") {
  aicb::run_request sweep;
  sweep.sweep = {aicb::collective::all_reduce, aicb::collective::all_to_all};
  sweep.sizes = {.low = 1024, .high = 8192};
  const aicb::prepared_run s = aicb::prepare_run(sweep, 4, 1);
  CHECK(s.sweep);
  REQUIRE(s.ops.size() == 8u);  // 1, 2, 4, 8 KiB of each
  CHECK(s.ops[0].kind == aicb::collective::all_reduce);
  CHECK(s.ops[3].size.count() == 8192u);
  CHECK(s.ops[4].kind == aicb::collective::all_to_all);
  CHECK(s.ops[4].group_size == 4u);
  // Without a world size the job spans the ranks started; its operations are the rank's schedule.
  aicb::run_request job;
  job.job.model = "llama3-8b";
  job.job.fields = {{"num_layers", "2"}, {"tensor_parallel", "2"}, {"global_batch", "4"}};
  const aicb::prepared_run p = aicb::prepare_run(job, 4, 3);
  CHECK(p.job.parallel.world_size == 4u);
  CHECK(p.what == "llama3-8b job");
  std::vector<aicb::operation> expected;
  for (const aicb::operation& op : aicb::rank_schedule(p.job, 3))
    expected.push_back(op);
  REQUIRE(p.ops.size() == expected.size());
  CHECK(p.ops.back().index == expected.back().index);
  job.job.fields.emplace_back("world_size", "8");
  CHECK_THROWS_WITH(aicb::prepare_run(job, 4, 0),
                    Catch::Contains("world_size = 8: must equal the ranks started (4)"));
}

TEST_CASE("run: a replay writes its summary, aicb's result CSV and a timeline on rank 0", "[commands][run]") {
  aicb::run_request r;
  r.sweep = {aicb::collective::all_reduce};
  r.sizes = {.low = 4096, .high = 8192};
  r.warmup = 1;
  r.repeat = 2;
  r.backend = aicb::run_backend::mpi;
  r.output = "run_summary.json";
  r.csv = "run_results.csv";
  r.timeline = "run_timeline.json";
  std::filesystem::remove(r.output);
  const aicb::prepared_run p = aicb::prepare_run(r, 1, 0);
  aicb_test::loopback transport;
  std::vector<std::string> phases;
  const aicb::run_outcome done =
      aicb::run_on(transport, r, p, [&](std::string_view phase) { phases.emplace_back(phase); });
  CHECK(done.result.slowest_iteration_us.size() == 2u);
  CHECK(!phases.empty());
  const std::string json = aicb_test::read_text(r.output);
  CHECK(json == aicb::run_json(done, p));
  CHECK(json.find("\"schema\": \"aicb.run/2\"") != std::string::npos);
  CHECK(json.find("\"backend\": \"mpi\"") != std::string::npos);
  CHECK(json.find("\"bytes\": 8192") != std::string::npos);
  // aicb's CSV: an item per operation (the measured count), then an epoch_end per measured iteration.
  const std::string csv = aicb_test::read_text(r.csv);
  CHECK(csv.find("all_reduce") != std::string::npos);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 2 + 2);  // header, 2 sizes, 2 iterations
  CHECK(aicb_test::read_text(r.timeline).find("\"schema\": \"aicb.trace/1\"") != std::string::npos);
  const std::string table = aicb::format_run_table(done, p);
  CHECK(table.find("collective sweep on 1 ranks (mpi), 1 warm-up + 2 measured iterations") !=
        std::string::npos);
  CHECK(table.find("iteration (slowest rank): mean") != std::string::npos);
  CHECK_FALSE(done.estimate_s);  // a sweep is no job to estimate
  CHECK(json.find("\"estimate\"") == std::string::npos);
}

TEST_CASE("run: a job's replay prints the estimate of the same job beside it, computation scaled alike",
          "[commands][run]") {
  aicb::run_request r;
  r.job.model = "llama3-8b";
  r.job.fields = {{"num_layers", "2"}, {"global_batch", "2"}, {"seq_length", "512"}};
  r.warmup = 0;
  r.repeat = 1;
  r.compute_scale = 0.001;
  r.backend = aicb::run_backend::mpi;
  const aicb::prepared_run p = aicb::prepare_run(r, 1, 0);
  aicb_test::loopback transport;
  const aicb::run_outcome done = aicb::run_on(transport, r, p);
  REQUIRE(done.estimate_s);
  CHECK(done.estimate_cluster == "dgx-h100");
  const aicb::roofline_model h100("H100");
  const aicb::detail::scaled_compute scaled(h100, 0.001);
  const double expected =
      aicb::estimate_iteration(p.job, scaled, aicb::cluster_preset("dgx-h100")).iteration_s;
  CHECK(*done.estimate_s == Approx(expected));
  CHECK(*done.estimate_s <
        aicb::estimate_iteration(p.job, h100, aicb::cluster_preset("dgx-h100")).iteration_s);
  CHECK_THAT(aicb::format_run_table(done, p),
             Catch::Contains("estimate of the same job on dgx-h100 (computation x 0.001)"));
  CHECK_THAT(aicb::run_json(done, p),
             Catch::Contains("\"estimate\": {") && Catch::Contains("\"cluster\": \"dgx-h100\""));
  // A straggler is one in the estimate too.
  r.slow_ranks = {{0, 4.0}};
  aicb_test::loopback again;
  const aicb::run_outcome slow = aicb::run_on(again, r, p);
  REQUIRE(slow.estimate_s);
  CHECK(*slow.estimate_s > *done.estimate_s);
}

TEST_CASE("run: aicb's bus-bandwidth factors are its own, not nccl-tests'", "[commands][run]") {
  CHECK(aicb::aicb_busbw_factor(aicb::csv_op::all_reduce, 8) == Approx(2.0 * 7 / 8));
  CHECK(aicb::aicb_busbw_factor(aicb::csv_op::all_gather, 4) == Approx(0.75));
  CHECK(aicb::aicb_busbw_factor(aicb::csv_op::all_to_all, 8) == 1.0);  // nccl-tests: 7/8
  CHECK(aicb::busbw_factor(aicb::collective::all_to_all, 8) == Approx(7.0 / 8));
}

TEST_CASE("run: a calibration sweep measures each collective within a node and across nodes",
          "[commands][run]") {
  aicb::run_request r;
  r.sweep = {aicb::collective::all_reduce, aicb::collective::all_to_all};
  r.sizes = {.low = 1024, .high = 1 << 20};
  r.calibration = "cluster.json";
  CHECK_THROWS_WITH(aicb::prepare_run(r, 8, 0), Catch::Contains("ranks_per_node = 0"));
  r.ranks_per_node = 3;
  CHECK_THROWS_WITH(aicb::prepare_run(r, 8, 0), Catch::Contains("divisor of the 8 ranks"));
  r.ranks_per_node = 4;
  // Rank 5 of 2 nodes x 4: its node's ranks 4-7 (the TP group of a grid whose TP is a node), and
  // ranks 1 and 5 (one per node: the DP group).
  const aicb::prepared_run p = aicb::prepare_run(r, 8, 5);
  CHECK(p.what == "calibration sweep");
  REQUIRE(p.ops.size() == 2u * 2u * 11u * aicb::calibration_burst);
  CHECK(p.ops[1].size == p.ops[0].size);  // each size a burst, back to back
  CHECK(p.ops[1].index == 1u);
  const aicb::process_grid grid(p.job);
  CHECK(p.ops[0].group == grid.group(aicb::group_kind::tp, 5).id());
  CHECK(grid.group(aicb::group_kind::tp, 5).first() == 4u);
  CHECK(p.ops[0].group_size == 4u);
  const aicb::operation& rail = p.ops[11 * aicb::calibration_burst];
  CHECK(rail.group == grid.group(aicb::group_kind::dp, 5).id());
  CHECK(grid.group(aicb::group_kind::dp, 5).member(0) == 1u);
  CHECK(rail.group_size == 2u);
  // One node: no rail group; one rank per node: no node group.
  r.ranks_per_node = 8;
  CHECK(aicb::prepare_run(r, 8, 0).ops.size() == 2u * 11u * aicb::calibration_burst);
  r.ranks_per_node = 1;
  CHECK(aicb::prepare_run(r, 8, 0).ops[0].group.kind == aicb::group_kind::dp);
  r.sweep.clear();
  CHECK_THROWS_WITH(aicb::validate(r), Catch::Contains("a calibration is a sweep"));
  // A sweep with job flags is a calibration followed by its job, else refused (not silently ignored).
  r.sweep = {aicb::collective::all_reduce};
  r.job.model = "llama3-8b";
  CHECK_NOTHROW(aicb::validate(r));
  const aicb::run_request job = aicb::job_after_calibration(r);
  CHECK(job.sweep.empty());
  CHECK(job.calibration.empty());
  CHECK(job.cluster == "cluster.json");  // the estimate on the cluster just measured
  CHECK(job.gpu == "H100");              // the GPU the calibration's base preset has
  CHECK(job.job.model == "llama3-8b");
  r.calibration.clear();
  CHECK_THROWS_WITH(aicb::validate(r), Catch::Contains("a run replays a sweep or a job"));
  // Ranks must fill nodes in order.
  CHECK(aicb::ranks_per_node_of({0, 0, 1, 1}) == 2u);
  CHECK_THROWS_WITH(aicb::ranks_per_node_of({0, 1, 0, 1}), Catch::Contains("fill nodes in order"));
  CHECK_THROWS_WITH(aicb::ranks_per_node_of({0, 0, 0, 1}), Catch::Contains("rank 3"));
  CHECK(aicb::node_of_ranks({77, 77, 12, 12}) == std::vector<std::uint64_t>{0, 0, 1, 1});
}

TEST_CASE("run: a calibration's cluster file reproduces the times it was fitted to", "[commands][run]") {
  aicb::run_request r;
  r.sweep = {aicb::collective::all_reduce, aicb::collective::all_gather};
  r.sizes = {.low = 1024, .high = 64 << 20};
  r.calibration = "cluster.json";
  r.ranks_per_node = 4;
  const aicb::prepared_run p = aicb::prepare_run(r, 16, 0);
  // Measured times: within a node 5 µs and 150 GB/s bus bandwidth, across nodes 12 µs and 40 GB/s,
  // with a protocol switch at 64 KiB (the latency doubles), each time off by up to ±3%.
  aicb::replay_result measured;
  measured.world = 16;
  for (const aicb::operation& op : p.ops) {
    const bool rail = op.group.kind == aicb::group_kind::dp;
    const double s = static_cast<double>(op.size.count());
    const double alpha = (rail ? 12.0 : 5.0) * (s >= 65536 ? 2 : 1);
    const double us =
        (alpha + s * aicb::busbw_factor(op.kind, op.group_size) / ((rail ? 40.0 : 150.0) * 1e3)) *
        (1 + 0.03 * std::sin(static_cast<double>(op.index)));
    const bool first_of_burst = op.index % aicb::calibration_burst == 0;  // switching sizes: dropped
    measured.operations.push_back({.op = op, .p50_us = us * (first_of_burst ? 1.5 : 1)});
  }
  const aicb::cluster_descriptor d = aicb::calibrate_cluster(measured, 4, aicb::cluster_preset("dgx-h100"),
                                                             {{"command", "aicb run --calibrate"}});
  REQUIRE(d.measured.curves.size() == 4u);
  CHECK(d.gpus_per_node == 4u);
  CHECK(d.nvlink_gb_per_s == Approx(150).epsilon(0.05));
  CHECK(d.nic_gb_per_s == Approx(40.0 * 4 / 8).epsilon(0.05));  // a rank's rail share, over 8 NICs per node
  CHECK_THAT(d.sources.at("nvlink_gb_per_s"), Catch::Contains("measured: all_reduce over 4 ranks of a node"));
  CHECK_THAT(d.sources.at("nics_per_node"), Catch::Contains("preset dgx-h100"));
  CHECK(d.provenance.at("command") == "aicb run --calibrate");
  CHECK(d.provenance.count("generator") == 1u);
  // The file read back prices each measured collective, through the estimate's placement of its
  // group, within 10% of what was measured.
  const aicb::cluster_descriptor back = aicb::parse_cluster_file(aicb::to_json(d));
  const aicb::cluster_spec c = back.spec();
  for (const aicb::replayed_operation& m : measured.operations) {
    if (m.op.index % aicb::calibration_burst == 0) continue;
    const bool rail = m.op.group.kind == aicb::group_kind::dp;
    const aicb::group_placement place{
        .size = m.op.group_size, .nodes = rail ? m.op.group_size : 1, .per_node = 1};
    const double us =
        aicb::collective_us(m.op.kind, static_cast<double>(m.op.size.count()),
                            rail ? place : aicb::group_placement{.size = 4, .nodes = 1, .per_node = 4}, c);
    INFO(aicb::to_string(m.op.kind) << (rail ? " rail " : " node ") << m.op.size.count());
    CHECK(std::abs(us - m.p50_us) <= 0.10 * m.p50_us);
  }
  for (const aicb::measured_curve& curve : back.measured.curves) {
    CHECK(curve.bands.size() >= 2u);  // the protocol switch
    CHECK(curve.max_error() <= aicb::band_tolerance);
  }
  CHECK_THAT(aicb::format_calibration(d, "cluster.json"),
             Catch::Contains("all_gather      rail") && Catch::Contains("wrote cluster.json"));
}

TEST_CASE("run: nccl-tests' table — columns, the placement measured, the footer", "[commands][run]") {
  aicb::run_request r;
  r.sweep = {aicb::collective::all_reduce, aicb::collective::reduce_scatter};
  r.sizes = {.low = 1 << 20, .high = 2 << 20};
  const aicb::prepared_run p = aicb::prepare_run(r, 8, 0);
  aicb::run_outcome o;
  o.result.world = 8;
  o.backend = aicb::run_backend::nccl;
  for (const aicb::operation& op : p.ops)
    o.result.operations.push_back(
        {.op = op, .mean_us = static_cast<double>(op.size.count()) / 1e4});  // 10 GB/s
  const std::string text = aicb::format_nccl_tests(o, p, r);
  // 1 MiB all-reduce over 8 ranks in 104.86 µs: algbw 10.00, busbw 17.50; in place, so the
  // out-of-place columns are blank (32 characters) as nccl-tests leaves them.
  CHECK_THAT(text, Catch::Contains("     1048576        524288      half     sum      -1" +
                                   std::string(32, ' ') + "   104.86   10.00   17.50    N/A\n"));
  // A reduce-scatter is out of place: its columns first, then blanks; its count per rank.
  CHECK_THAT(
      text,
      Catch::Contains("     2097152        131072      half     sum      -1   209.72   10.00    8.75    N/A" +
                      std::string(32, ' ') + "\n"));
  CHECK_THAT(text, Catch::Contains("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 17.5 \n"));
  CHECK_THAT(text, Catch::Contains("# Collective test concluded: reduce_scatter_perf"));
  CHECK_THAT(text, Catch::Contains("minBytes 1048576 maxBytes 2097152 step: 2(factor)"));
}

TEST_CASE("run: nccl-tests' table on one rank shows its rows, bus bandwidth 0", "[commands][run]") {
  aicb::run_request r;
  r.sweep = {aicb::collective::all_to_all};
  r.sizes = {.low = 1 << 20, .high = 1 << 20};
  const aicb::prepared_run p = aicb::prepare_run(r, 1, 0);
  aicb::run_outcome o;
  o.result.world = 1;
  o.backend = aicb::run_backend::nccl;
  for (const aicb::operation& op : p.ops)
    o.result.operations.push_back({.op = op, .mean_us = static_cast<double>(op.size.count()) / 1e4});
  const std::string text = aicb::format_nccl_tests(o, p, r);
  // An all-to-all is out of place: 1 MiB in 104.86 µs is 10 GB/s of algorithm bandwidth, 0 on the bus.
  CHECK_THAT(
      text, Catch::Contains("     1048576        524288      half    none      -1   104.86   10.00    0.00"));
  CHECK_THAT(text, Catch::Contains("# Collective test concluded: alltoall_perf"));
  // Over several ranks a group of one is left out.
  o.result.world = 8;
  CHECK_THAT(aicb::format_nccl_tests(o, p, r), !Catch::Contains("alltoall_perf"));
}
