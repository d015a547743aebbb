// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/commands/generate.hpp>

#include <catch2/catch.hpp>

#include "text_file.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace {
aicb::generate_request llama_request() {
  aicb::generate_request r;
  r.job.model = "llama3-8b";
  r.flags.set("world_size", "16");
  r.flags.set("tensor_model_parallel_size", "2");
  r.flags.set("global_batch", "32");
  r.job.fields = {{"seq_length", "4096"}};
  return r;
}
bool has_note(const std::vector<std::string>& notes, const std::string& text) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}
}  // namespace

TEST_CASE("generate: every format is built from the same job", "[commands][generate]") {
  aicb::generate_request r = llama_request();
  r.output = "gen_same.txt";
  const aicb::generate_result simai = aicb::generate_workload(r);
  r.format = aicb::workload_format::csv;
  r.output = "gen_same.csv";
  const aicb::generate_result csv = aicb::generate_workload(r);
  REQUIRE(simai.job);
  REQUIRE(csv.job);
  CHECK(*simai.job == *csv.job);
  CHECK(simai.job->parallel.tensor_parallel == 2u);
  CHECK(simai.job->batch.seq_length == 4096u);
  CHECK(simai.written.records > 0u);
  CHECK(csv.items > 0u);
  CHECK(std::filesystem::exists("gen_same.txt.json"));
  CHECK(aicb_test::read_text("gen_same.txt.json").find("\"mode\": \"corrected\"") != std::string::npos);
  // What runs in which format is in the sidecar; the SimAI command for the file on an H100 cluster (the
  // default GPU) is in the result.
  CHECK(aicb_test::read_text("gen_same.txt.json").find("\"precision\": {") != std::string::npos);
  CHECK(simai.simai_command ==
        "SimAI_analytical -w gen_same.txt -g 16 -g_p_s 8 -r aicb- -nv 360 -nic 48.5 -n_p_s 8 -g_type H100");
  CHECK(csv.simai_command.empty());
  CHECK(simai.simai_caveat.empty());
  // 12 GPUs do not fill servers of 8: the command is still given, and what SimAI does not see of it.
  r = llama_request();
  r.flags.set("world_size", "12");
  r.flags.set("global_batch", "24");
  r.output = "gen_twelve.txt";
  aicb::generate_result twelve = aicb::generate_workload(r);
  CHECK_THAT(twelve.simai_caveat, Catch::Contains("12 / 8 = 1 whole servers") && Catch::Contains("last 4"));
  aicb::describe_generated(twelve);
  CHECK_THAT(twelve.details, Catch::Contains("note: SimAI counts servers of 8 GPUs"));
}

TEST_CASE("generate: the job's rules — explicit flags win over a preset, aicb's switches keep their meaning",
          "[commands][generate]") {
  aicb::generate_request r = llama_request();
  r.flags.set("num_layers", "8");
  r.flags.set("recompute_activations", "true");
  std::vector<std::string> notes;
  const aicb::job_spec job = aicb::corrected_job(r, notes);
  CHECK(job.model.num_layers == 8u);
  CHECK(job.parallel.recompute == aicb::recompute_kind::selective);

  // Nothing given: aicb's defaults, and the heads aicb would get wrong chosen and said.
  const aicb::job_spec bare = aicb::corrected_job({}, notes);
  CHECK(bare.parallel.world_size == 1u);
  CHECK(bare.model.num_layers == 24u);
  CHECK(bare.model.num_attention_heads == 8u);  // 1024 / 128
  CHECK(has_note(notes, "num_attention_heads not given"));
  CHECK(aicb::corrected_simai_file_name(bare, "H100", {}).find("custom") != std::string::npos);

  // --moe_enable without experts is refused, not a silent one-expert "MoE".
  aicb::generate_request moe;
  moe.flags.set("moe_enable", "true");
  CHECK_THROWS_WITH(aicb::corrected_job(moe, notes), Catch::Contains("num_experts"));

  // A size without a family is a llama shape, with a note.
  aicb::generate_request sized;
  sized.job.size = "15B";
  notes.clear();
  const aicb::job_spec shaped = aicb::corrected_job(sized, notes);
  CHECK(shaped.model.activation == aicb::activation_kind::swiglu);
  CHECK(has_note(notes, "--family defaults to llama"));
}

TEST_CASE("generate: what cannot be honoured is an error before any file", "[commands][generate]") {
  aicb::generate_request r = llama_request();
  r.output = "gen_refused.txt";
  std::filesystem::remove(r.output);
  r.compat = aicb::compat_mode::aicb;
  r.job.size = "15B";
  CHECK_THROWS_WITH(aicb::generate_workload(r), Catch::Contains("aicb has no such option"));
  r.job.size.clear();
  r.iterations = 2;
  CHECK_THROWS_WITH(aicb::generate_workload(r), Catch::Contains("one iteration"));
  r = llama_request();
  r.output = "gen_refused.txt";
  r.compute = aicb::compute_source::aiob;  // no profile
  CHECK_THROWS_WITH(aicb::generate_workload(r), Catch::Contains("comp_filepath"));
  // A compute model is one of the named choices: an unknown name is refused where text becomes a request.
  CHECK_THROWS_WITH(aicb::parse_value("compute", "guess", r.compute),
                    "compute = guess: expected auto | aiob | roofline | constant");
  r.compute = aicb::compute_source::automatic;
  r.stage = 3;
  r.format = aicb::workload_format::csv;
  CHECK_THROWS_WITH(aicb::generate_workload(r), Catch::Contains("pipeline_parallel"));
  CHECK_FALSE(std::filesystem::exists("gen_refused.txt"));
}

TEST_CASE("generate: descriptor fields beside --compat aicb are said to be left out",
          "[commands][generate]") {
  aicb::generate_request r = llama_request();
  r.compat = aicb::compat_mode::aicb;
  r.job.fields.emplace_back("cross_entropy_loss_fusion", "true");
  r.output = "gen_compat_fields.txt";
  r.sidecar = false;
  const aicb::generate_result out = aicb::generate_workload(r);
  CHECK(has_note(out.notes, "cross_entropy_loss_fusion = true is not one of aicb's flags"));
  CHECK(has_note(out.notes, "seq_length = 4096 is not one of aicb's flags"));
  r.format = aicb::workload_format::csv;  // aicb's Megatron CSV, its GPUs as nodes x GPUs per node
  r.nnodes = 2;
  r.nproc_per_node = 8;
  r.output = "gen_compat_fields.csv";
  CHECK(has_note(aicb::generate_workload(r).notes,
                 "cross_entropy_loss_fusion = true is not one of aicb's flags"));
  r.compat = aicb::compat_mode::corrected;  // the corrected file reads them: no such note
  r.format = aicb::workload_format::simai;
  r.output = "gen_compat_fields.txt";
  CHECK_FALSE(has_note(aicb::generate_workload(r).notes, "is not one of aicb's flags"));
  std::filesystem::remove("gen_compat_fields.txt");
  std::filesystem::remove("gen_compat_fields.csv");
}

TEST_CASE("generate: progress is reported before the file is written", "[commands][generate]") {
  aicb::generate_request r = llama_request();
  r.output = "gen_progress.txt";
  r.sidecar = false;
  std::filesystem::remove("gen_progress.txt.json");
  bool planned = false, existed_when_planned = true;
  std::uint64_t announced = 0;
  aicb::generate_events events;
  events.planned = [&](const aicb::generate_result& so_far) {
    planned = true;
    existed_when_planned = std::filesystem::exists(so_far.path);
    CHECK(so_far.compute_model.find("roofline") != std::string::npos);
  };
  events.writing = [&](const std::string&, std::uint64_t records, std::uint64_t) { announced = records; };
  std::filesystem::remove("gen_progress.txt");
  const aicb::generate_result done = aicb::generate_workload(r, events);
  CHECK(planned);
  CHECK_FALSE(existed_when_planned);
  CHECK(announced == done.written.records);
  CHECK_FALSE(done.sidecar);
  CHECK_FALSE(std::filesystem::exists("gen_progress.txt.json"));
}

TEST_CASE("generate: the sidecar and the Chakra manifest say what produced them and from which inputs",
          "[commands][generate]") {
  aicb::generate_request r = llama_request();
  r.output = "gen_provenance.txt";
  r.command = "aicb generate --model llama3-8b";
  aicb::cluster_descriptor lab = aicb::descriptor_of(aicb::cluster_preset("dgx-a100"));
  lab.name = "lab";
  aicb::write_cluster_file(lab, "gen_provenance_cluster.json");
  r.cluster = "gen_provenance_cluster.json";
  (void)aicb::generate_workload(r);
  const std::string sidecar = aicb_test::read_text("gen_provenance.txt.json");
  CHECK_THAT(sidecar, Catch::Contains("\"command\": \"aicb generate --model llama3-8b\""));
  CHECK_THAT(sidecar, Catch::Contains("\"gen_provenance_cluster.json\": \"" +
                                      aicb::content_hash("gen_provenance_cluster.json") + "\""));
  r.format = aicb::workload_format::chakra;
  r.output = "gen_provenance_chakra";
  r.flags.set("num_layers", "2");
  (void)aicb::generate_workload(r);
  const std::string manifest = aicb_test::read_text("gen_provenance_chakra/manifest.json");
  CHECK_THAT(manifest, Catch::Contains("\"provenance\": {") &&
                           Catch::Contains("\"command\": \"aicb generate --model llama3-8b\""));
  std::filesystem::remove_all("gen_provenance_chakra");
  std::filesystem::remove("gen_provenance_cluster.json");
}
