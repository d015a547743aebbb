// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// What `aicb generate` does, as a library function: aicb::generate_workload takes the request a
/// command line makes (a model source and fields, aicb's generator flags, the output's format and
/// place) and writes the file — the corrected workload by default, aicb's own byte for byte with
/// `compat = "aicb"`. The aicb program only turns flags into a generate_request and prints the
/// result, so a program that calls this writes the same bytes the command line does.
///
/// ```cpp
/// aicb::generate_request r;
/// r.job.model = "llama3-8b";
/// r.job.fields = {{"world_size", "16"}, {"tensor_parallel", "2"}, {"global_batch", "32"}};
/// r.output = "llama3_8b.txt";
/// const aicb::generate_result done = aicb::generate_workload(r);   // llama3_8b.txt and its .json sidecar
/// ```
///
/// Every format is built from the same job (aicb::corrected_job): `--format csv` and `--format
/// simai` differ in the projection, never in the model. The one exception is `compat = "aicb"`,
/// which reproduces aicb's argument handling (its defaults, its scripts' presets) as aicb does.
///
/// This header reads files (a config.json, an AIOB profile), so it is not part of `<aicb/aicb.hpp>`;
/// `<aicb/all.hpp>` includes it.

#include <aicb/calc/job_request.hpp>
#include <aicb/calc/report_format.hpp>
#include <aicb/calc/sizing.hpp>
#include <aicb/checked.hpp>
#include <aicb/commands/written.hpp>
#include <aicb/compat/aicb_args.hpp>
#include <aicb/compat/aicb_flags.hpp>
#include <aicb/compat/aicb_simai.hpp>
#include <aicb/compat/megatron_csv.hpp>
#include <aicb/compute/aiob_model.hpp>
#include <aicb/compute/cluster.hpp>
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/error.hpp>
#include <aicb/generate/csv_projection.hpp>
#include <aicb/generate/file_names.hpp>
#include <aicb/generate/simai_projection.hpp>
#include <aicb/io/aiob_reader.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/io/cluster_file.hpp>
#include <aicb/io/provenance.hpp>
#include <aicb/io/workload_file.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/workload/modes.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// What `aicb generate` is asked. See the file comment.
struct generate_request {
  /// The model source (`model`: a preset, one of aicb's model names or a size; `hf_config`; `size`
  /// with `family`, empty meaning llama with a note) and descriptor fields that have no aicb name.
  job_request job{.family = ""};
  aicb_flag_values flags{};                         ///< aicb's generator flags, by aicb's names
  compat_mode compat = compat_mode::corrected;      ///< corrected, or aicb's file byte for byte
  workload_format format = workload_format::simai;  ///< simai | csv | chakra
  std::string output{};  ///< the file (chakra: the directory); empty: aicb's name under results/
  /// aiob | roofline | constant; automatic: aiob with a profile, else roofline
  compute_source compute = compute_source::automatic;
  /// A cluster preset (docs/cluster.md): its GPU times the computation unless `--gpu_type` names one,
  /// and the SimAI command line printed runs on its machines. Empty: the GPU's preset.
  std::string cluster{};
  std::uint64_t iterations = 1;          ///< training iterations in the file (1: aicb's --epoch_num if given)
  std::optional<std::uint64_t> stage{};  ///< the pipeline stage to emit (default: the last)
  std::string ranks{};                   ///< chakra: the ranks to write ("0-7,12"); empty: all
  /// chakra: slow ranks (stragglers), their computations that many times longer (a trace times
  /// computation only: a slow link is the simulator's network configuration).
  std::vector<slow_rank> slow_ranks{};
  bool strict = false;      ///< refuse a profile whose provenance does not match the job
  bool sidecar = true;      ///< SimAI: write FILE.json beside the workload
  bool check_space = true;  ///< refuse an estimate beyond the free space
  /// The GPU count as megatron_gpt.sh gives it (nodes x GPUs per node): the world size of the corrected
  /// job; with `compat = "aicb"` and `--format csv`, what the script does with it.
  std::optional<std::uint64_t> nproc_per_node{}, nnodes{};
  /// The command line that asked, recorded in the files' provenance (empty: a library call).
  std::string command{};
};

/// The provenance of what `r` writes: its command, and each input file it reads (the Hugging Face
/// config, the AIOB profile, a cluster file) with the hash of its bytes.
[[nodiscard]] inline provenance provenance_of(const generate_request& r) {
  provenance p{.command = r.command};
  if (!r.job.hf_config.empty()) p.add_input(r.job.hf_config);
  if (r.flags.given("comp_filepath")) p.add_input(r.flags.text("comp_filepath"));
  if (names_cluster_file(r.cluster)) p.add_input(r.cluster);
  return p;
}

/// Progress, for a caller that reports it: `planned` once everything is decided and before anything
/// is written (path, job, compute model and notes are set); `writing` when a SimAI file's size is
/// estimated.
struct generate_events {
  std::function<void(const generate_result&)> planned{};
  std::function<void(const std::string& path, std::uint64_t records, std::uint64_t bytes)> writing{};
  /// A Chakra set's estimated size, before its first trace: the directory, the traces, the bytes.
  std::function<void(const std::string& path, std::uint64_t traces, std::uint64_t bytes)> writing_set{};
};

/// The job a request describes, as the corrected generator builds it, for every format: aicb's
/// defaults for what nothing gives (one GPU, global batch 4, sequence 2048, a 24-layer 1024-wide
/// model), then the model source, then aicb's flags and the other fields — explicit flags always win
/// over a preset. aicb's switches keep their meaning (`--swiglu`, `--recompute_activations`,
/// `--moe_enable` with `--num_experts`; `-m deepseek` and `--frame DeepSeek` give aicb's MLA
/// defaults). Decisions made for the user are appended to `notes`. Not validated here.
[[nodiscard]] inline job_spec corrected_job(const generate_request& r, std::vector<std::string>& notes) {
  const aicb_flag_values& f = r.flags;
  job_spec job;
  job.parallel.world_size = 1;
  job.batch.global_batch = 4;
  job.batch.seq_length = 2048;
  job_request source = r.job;
  const bool deepseek_name = source.model == "deepseek";  // aicb's DeepSeek frame, not a preset
  if (deepseek_name) source.model.clear();
  if (source.family.empty()) source.family = "llama";
  const model_choice choice = select_model(source);
  if (!source.model.empty() || !source.hf_config.empty() || !source.size.empty()) {
    job.model = choice.model;
  } else {
    job.model.hidden_size = 1024;
    job.model.num_layers = 24;
    job.model.vocab_size = 32000;
    job.model.max_position_embeddings = 4096;
  }
  const bool deepseek = deepseek_name || f.text("frame") == "DeepSeek";
  if (deepseek && job.model.kv_lora_rank == 0) {  // aicb's MLA defaults
    job.model.q_lora_rank = 1536;
    job.model.kv_lora_rank = 512;
    job.model.qk_nope_head_dim = 128;
    job.model.qk_rope_head_dim = 64;
    job.model.v_head_dim = 128;
  }
  for (const aicb_flag& flag : aicb_flags)
    if (f.given(flag.name) && !flag.field.empty()) {
      std::string value = f.text(flag.name);
      if (flag.name == "dtype") {
        const auto t = from_string<dtype>(value);
        if (!t) AICB_THROW(config_error("dtype", value, "expected bfloat16 | float16 | float32 | fp8"));
        value = std::string(to_string(*t));
      }
      set_job_field(job, std::string(flag.field), value);
    }
  if (f.on("swiglu")) job.model.activation = activation_kind::swiglu;
  if (f.on("recompute_activations")) job.parallel.recompute = recompute_kind::selective;
  const bool moe = f.on("moe_enable") || deepseek_name;
  if (moe && !job.model.is_moe()) {
    if (!f.given("num_experts"))
      AICB_THROW(config_error("num_experts", "1",
                              "--moe_enable needs --num_experts (aicb's default of 1 expert is not MoE)"));
    if (job.model.moe_top_k == 0) job.model.moe_top_k = 1;
    if (deepseek && !f.given("n_shared_expert")) job.model.num_shared_experts = 2;
    if (deepseek && !f.given("n_dense_layers")) job.model.first_dense_layers = 3;
  }
  if (!moe && !job.model.is_moe()) {  // aicb's DeepSeek-only options mean nothing for a dense model
    job.model.num_shared_experts = 0;
    job.model.first_dense_layers = 0;
    job.model.num_experts = 0;
    job.model.moe_top_k = 0;
    if (!f.given("expert_model_parallel_size")) job.parallel.expert_parallel = 1;
  }
  for (const auto& [field, text] : source.fields)
    if (!text.empty()) set_job_field(job, field, text);
  if (r.nnodes || r.nproc_per_node) {  // megatron_gpt.sh's GPU count: nodes x GPUs per node
    if (!r.nnodes || !r.nproc_per_node)
      AICB_THROW(config_error(r.nnodes ? "nproc_per_node" : "nnodes", "(none)",
                              "--nnodes and --nproc_per_node go together: the GPU count is their product"));
    const std::uint64_t gpus = checked_mul(*r.nnodes, *r.nproc_per_node, "nnodes x nproc_per_node");
    if (f.given("world_size") && f.number("world_size") != gpus)
      AICB_THROW(config_error("world_size", f.text("world_size"),
                              "differs from nnodes x nproc_per_node = " + std::to_string(gpus)));
    job.parallel.world_size = gpus;
  }
  if (choice.size) {
    if (r.job.family.empty())
      notes.push_back(
          "--family defaults to llama in every subcommand now (generate used gpt before); give "
          "--family gpt for a GPT shape");
    notes.push_back(fit_size(job, choice, source.family));
  }
  if (job.model.num_attention_heads == 0) {  // aicb BUG-01 (heads = layers) fixed: heads of 128, or 64
    const std::uint64_t head = standard_head_size(job.model.hidden_size);
    job.model.num_attention_heads = job.model.hidden_size / head;
    notes.push_back("num_attention_heads not given: " + std::to_string(job.model.num_attention_heads) +
                    " (heads of " + std::to_string(head) + ")");
  }
  if (f.given("model_name")) job.model.name = spec_name::from(f.text("model_name"));
  return job;
}

/// Training iterations in the file: `iterations`, or aicb's `--epoch_num` when iterations is 1.
[[nodiscard]] inline std::uint64_t requested_iterations(const generate_request& r) {
  if (r.iterations == 1 && r.flags.given("epoch_num")) return r.flags.number("epoch_num");
  return r.iterations;
}

/// A compute model chosen for a job, with what it needs kept alive.
struct chosen_compute {
  std::unique_ptr<compute_model> fallback;  ///< the roofline behind a profile's gaps
  std::unique_ptr<compute_model> model;
  std::string gpu;  ///< the GPU whose catalogue entry or profile times it
};

/// The compute model a request asks for: `compute` (aiob | roofline | constant), or by the flags — a
/// profile (`--aiob_enable`, `--comp_filepath`) when given, else the roofline of `--gpu_type`
/// (H100 by default). A profile's mismatches with the job are notes, or errors under `strict`.
[[nodiscard]] inline chosen_compute choose_compute(const generate_request& r, const job_spec& job,
                                                   std::vector<std::string>& notes) {
  const aicb_flag_values& f = r.flags;
  compute_source kind = r.compute;
  if (kind == compute_source::automatic)
    kind = f.on("aiob_enable") || f.given("comp_filepath") ? compute_source::aiob : compute_source::roofline;
  chosen_compute c;
  c.gpu = f.given("gpu_type")  ? f.text("gpu_type")
          : !r.cluster.empty() ? std::string(resolve_cluster("", r.cluster).gpu)
                               : "H100";
  if (kind == compute_source::constant) {
    c.model = std::make_unique<constant_model>();
  } else if (kind == compute_source::roofline) {
    c.model = std::make_unique<roofline_model>(c.gpu);
  } else {  // aiob
    if (!f.given("comp_filepath"))
      AICB_THROW(config_error("comp_filepath", "(none)", "--compute aiob needs a profile"));
    const std::string file = f.text("comp_filepath");
    aiob_profile profile = read_aiob_file(file);
    const std::vector<std::string> mismatches =
        profile_mismatches(profile, job, f.given("gpu_type") ? c.gpu : std::string());
    for (const std::string& m : mismatches)
      notes.push_back((r.strict ? "error: " : "profile: ") + m);
    if (r.strict && !mismatches.empty())
      AICB_THROW(
          config_error("comp_filepath", file, "the profile does not match the job (see above; --strict)"));
    c.fallback = std::make_unique<roofline_model>(c.gpu);
    c.model = std::make_unique<aiob_model>(std::move(profile), file, c.fallback.get());
  }
  return c;
}

/// aicb's file name for a corrected SimAI workload: its naming scheme, with the GPU that times it and
/// the model's name ("custom" for a model given by its dimensions alone, where aicb writes "None").
[[nodiscard]] inline std::string corrected_simai_file_name(const job_spec& job,
                                                           const std::optional<std::string>& gpu,
                                                           const aicb_flag_values& f) {
  return simai_file_name({.gpu = gpu,
                          .model = std::string(job.model.name.empty() ? "custom" : job.model.name.view()),
                          .world_size = job.parallel.world_size,
                          .tensor_parallel = job.parallel.tensor_parallel,
                          .pipeline_parallel = job.parallel.pipeline_parallel,
                          .expert_parallel = job.parallel.expert_parallel,
                          .global_batch = global_batch(job),
                          .micro_batch = job.batch.micro_batch,
                          .seq_length = job.batch.seq_length,
                          .moe = job.model.is_moe(),
                          .grouped_gemm = f.on("moe_grouped_gemm"),
                          // The job's own attention kernel (flash unless the job says otherwise),
                          // whatever aicb's flag said.
                          .flash_attention = job.parallel.attention == attention_kind::flash});
}

/// aicb's file name for a corrected CSV workload (its Megatron CSV naming scheme).
[[nodiscard]] inline std::string corrected_csv_file_name(const job_spec& job, std::uint64_t iterations,
                                                         bool computation) {
  return csv_file_name({.generator = "megatron",
                        .model = job.model.name.empty()
                                     ? std::nullopt
                                     : std::optional<std::string>(std::string(job.model.name.view())),
                        .sequence_parallel = job.parallel.sequence_parallel,
                        .iterations = iterations,
                        .computation = computation,
                        .world_size = job.parallel.world_size});
}

namespace detail {

// The files a request reads: an output may not be one of them.
[[nodiscard]] inline std::vector<std::string> generate_inputs(const generate_request& r) {
  std::vector<std::string> files;
  if (r.flags.given("comp_filepath")) files.push_back(r.flags.text("comp_filepath"));
  return files;
}

inline generate_result generate_corrected_csv(const generate_request& r, const generate_events& events) {
  generate_result out;
  out.format = workload_format::csv;
  const job_spec job = corrected_job(r, out.notes);
  const validated_job checked(job);  // once on this path: the projection checks nothing again
  std::optional<std::uint64_t> stage = r.stage;
  if (!stage && r.flags.given("pp_rank") && r.flags.text("pp_rank") != "-1")
    stage = r.flags.number("pp_rank");
  if (stage && *stage >= job.parallel.pipeline_parallel)
    AICB_THROW(config_error("pipeline_stage", std::to_string(*stage),
                            "a stage index must be below pipeline_parallel"));
  out.iterations = requested_iterations(r);
  csv_projection_options options{
      .iterations = out.iterations,
      .computation = r.flags.on("computation_enable") || r.flags.on("aiob_enable")};
  if (stage) options.rank = first_rank_of_stage(job, *stage);
  const csv_projection w(checked, options);
  out.job = checked.job();
  out.rank = w.rank();
  out.pipeline_stage = w.pipeline_stage();
  out.path = output_path_or_default(r.output, "results/mocked_workload",
                                    corrected_csv_file_name(job, out.iterations, options.computation));
  if (events.planned) events.planned(out);
  if (r.check_space) require_csv_projection_space(job, options, out.path);
  out.items = write_csv_file(
      out.path, [&](auto&& sink) { w.generate(sink); }, generate_inputs(r));
  out.warnings = w.warnings();
  return out;
}

// Descriptor fields given beside --compat aicb: aicb's file is built from aicb's flags alone, so each
// is said to be left out rather than dropped silently.
inline void note_fields_aicb_ignores(const generate_request& r, std::vector<std::string>& notes) {
  for (const auto& [field, text] : r.job.fields)
    notes.push_back("aicb: " + field + " = " + text +
                    " is not one of aicb's flags; --compat aicb writes aicb's file without it");
}

inline generate_result generate_aicb_csv(const generate_request& r, const generate_events& events) {
  generate_result out;
  out.format = workload_format::csv;
  out.mode = compat_mode::aicb;
  aicb_args args = megatron_args_from_flags(r.flags, r.job.model, r.nnodes, r.nproc_per_node, out.notes);
  note_fields_aicb_ignores(r, out.notes);
  if (r.iterations != 1) args.epoch_num = r.iterations;
  const megatron_csv_workload w(args);
  out.iterations = args.epoch_num;
  out.pipeline_stage = w.pipeline_stage();
  out.path = output_path_or_default(r.output, "results/mocked_workload", megatron_csv_file_name(w.args()));
  if (events.planned) events.planned(out);
  if (r.check_space) {
    aicb_args one = args;
    one.epoch_num = 1;
    const megatron_csv_workload one_epoch(one);
    require_csv_space(
        out.path, [&](auto&& sink) { one_epoch.generate(sink); }, args.epoch_num);
  }
  out.items = write_csv_file(
      out.path, [&](auto&& sink) { w.generate(sink); }, generate_inputs(r));
  return out;
}

inline simai_file_options simai_options(const generate_request& r, const generate_events& events,
                                        std::uint64_t records, const std::string& path) {
  simai_file_options o;
  o.check_space = r.check_space;
  o.inputs = generate_inputs(r);
  if (events.writing)
    o.on_start = [&events, records, path](std::uint64_t bytes) { events.writing(path, records, bytes); };
  return o;
}

inline generate_result generate_aicb_simai(const generate_request& r, const generate_events& events) {
  generate_result out;
  out.mode = compat_mode::aicb;
  const aicb_args args = aicb_args_from_flags(r.flags, r.job.model, out.notes);
  note_fields_aicb_ignores(r, out.notes);
  if (r.iterations != 1)
    AICB_THROW(config_error("iterations", std::to_string(r.iterations),
                            "aicb compatibility writes one iteration, as aicb does"));
  std::optional<aiob_profile> profile;
  if (args.aiob_enable && args.comp_filepath) profile = read_aiob_file(*args.comp_filepath);
  const aicb_workload w(args, profile);
  out.header = w.header();
  out.compute_model = args.aiob_enable ? "aiob (aicb arithmetic): " + args.comp_filepath.value_or("")
                                       : "constant: aicb's placeholder, 1 ns per item";
  out.path = output_path_or_default(r.output, "results/workload", w.file_name());
  if (events.planned) events.planned(out);
  simai_file_options o = simai_options(r, events, w.size(), out.path);
  o.strict = false;
  // The sidecar's description outlives the options that refer to it.
  const simai_sidecar about{
      .generator = "aicb generate",
      .mode = compat_mode::aicb,
      .compute_model = out.compute_model,
      .iterations = 1,
      .pipeline_stage = std::nullopt,
      .job =
          [&](json_writer& j) {
            j.begin_object().member("frame", args.frame).member("world_size", args.world_size);
            j.member("tensor_model_parallel_size", args.tensor_model_parallel_size);
            j.member("pipeline_model_parallel", args.pipeline_model_parallel);
            j.member("global_batch", args.global_batch).member("micro_batch", args.micro_batch);
            j.member("num_layers", args.num_layers).member("hidden_size", args.hidden_size);
            j.member("seq_length", args.seq_length).end_object();
          },
      .origin = provenance_of(r)};
  if (r.sidecar)
    o.sidecar = [&](const simai_file_summary& s) { return to_json(about, out.path, out.header, s); };
  out.written = write_simai_file(w, out.path, o);
  out.sidecar = r.sidecar;
  return out;
}

// The corrected SimAI file of `job` (built by the caller, with its `notes`) as request `r` asks for it:
// its GPU, cluster, output, stage, iterations and sidecar.
inline generate_result corrected_simai_of(const generate_request& r, const job_spec& job,
                                          std::vector<std::string> notes, const generate_events& events) {
  generate_result out;
  out.notes = std::move(notes);
  const validated_job checked(
      job);  // once on this path: the projection and its schedules check nothing again
  const chosen_compute compute = choose_compute(r, job, out.notes);
  out.iterations = requested_iterations(r);
  const simai_projection w(checked, *compute.model,
                           {.iterations = out.iterations, .pipeline_stage = r.stage});
  out.job = w.job();
  out.header = w.header();
  out.compute_model = compute.model->provenance();
  out.rank = w.rank();
  out.pipeline_stage = w.pipeline_stage();
  const bool named_gpu =
      r.flags.given("gpu_type") || dynamic_cast<const roofline_model*>(compute.model.get());
  out.path = output_path_or_default(
      r.output, "results/workload",
      corrected_simai_file_name(job, named_gpu ? std::optional<std::string>(compute.gpu) : std::nullopt,
                                r.flags));
  out.warnings = w.warnings();
  // What the job overlaps that SimAI's format has no way to say (docs/workloads.md, "What a SimAI file cannot
  // say").
  if (job.parallel.overlap_grad_reduce)
    out.notes.push_back(
        "overlap_grad_reduce: SimAI's format cannot place the gradient reduction under the last backward "
        "pass; SimAI-Analytical prices it after the backward, exposed (aicb describe prices the overlap)");
  if (job.parallel.pipeline_schedule == pipeline_schedule_kind::zb_h1)
    out.notes.push_back(
        "pipeline_schedule zb_h1: SimAI runs its own 1F1B (each layer's weight gradient right after its "
        "input gradient), so the file holds the same records as 1F1B's; the deferred weight gradients are in "
        "`aicb describe`, the timeline and Chakra traces");
  if (job.parallel.pipeline_schedule == pipeline_schedule_kind::dualpipe)
    out.notes.push_back(
        "pipeline_schedule dualpipe: SimAI's format has one direction and one copy of each stage, so the "
        "file is the same job's 1F1B; the two directions, the overlapped forward-backward pairs, the second "
        "weight copy and the mirrors' gradient exchange are in `aicb describe`, the timeline and Chakra "
        "traces");
  if (job.parallel.overlap_moe_expert_parallel_comm)
    out.notes.push_back(
        "overlap_moe_expert_parallel_comm: SimAI's format describes one micro batch's layers, with no second "
        "one to merge with, so the file holds the records of the plain schedule; the merged forward-backward "
        "steps and the all-to-alls they hide are in `aicb describe`, the timeline and Chakra traces");
  if (job.model.is_moe() && job.parallel.expert_parallel > 1)
    out.notes.push_back(
        "expert-parallel all-to-alls are written on the critical path: SimAI's format cannot overlap them "
        "with the experts' computation");
  if (job.parallel.moe_dispatcher == moe_dispatcher_kind::flex && job.parallel.expert_parallel > 1)
    out.notes.push_back(
        "moe_dispatcher flex: where the EP group spans nodes DeepEP sends a token once per destination node "
        "and forwards it over NVLink there; SimAI's all-to-all sends it once per destination GPU (aicb "
        "describe "
        "prices the forwarding)");
  if (const auto* aiob = dynamic_cast<const aiob_model*>(compute.model.get())) {
    for (op_role role : aiob->missing_roles())
      out.warnings.push_back("the profile has no section for " + std::string(to_string(role)) +
                             "; timed by the roofline model");
    for (const auto& [role, kind] : aiob->unprofiled())
      out.warnings.push_back("the profile's " + std::string(to_string(role)) + " section times " +
                             aiob_model::profiled_text(role) + "; the role's " +
                             std::string(to_string(kind)) + " operations are timed by the roofline model");
  }
  if (events.planned) events.planned(out);
  simai_file_options o = simai_options(r, events, w.size(), out.path);
  const simai_sidecar about{.generator = "aicb generate",
                            .mode = compat_mode::corrected,
                            .compute_model = out.compute_model,
                            .iterations = out.iterations,
                            .pipeline_stage = out.pipeline_stage,
                            .job = [&](json_writer& j) { write_json(j, w.job()); },
                            .precision = [&](json_writer& j) { write_precision_json(j, w.job()); },
                            .warnings = out.warnings,
                            .origin = provenance_of(r)};
  if (r.sidecar)
    o.sidecar = [&](const simai_file_summary& s) { return to_json(about, out.path, out.header, s); };
  out.written = write_simai_file(w, out.path, o);
  out.sidecar = r.sidecar;
  if (!r.cluster.empty()) {
    const cluster_spec machines = resolve_cluster(compute.gpu, r.cluster);
    out.simai_command = simai_command_line(machines, job.parallel.world_size, out.path);
    out.simai_caveat = simai_placement_problem(machines, job.parallel.world_size);
  } else if (const cluster_spec* machines = cluster_for_gpu(compute.gpu)) {
    out.simai_command = simai_command_line(*machines, job.parallel.world_size, out.path);
    out.simai_caveat = simai_placement_problem(*machines, job.parallel.world_size);
  }
  return out;
}

inline generate_result generate_corrected_simai(const generate_request& r, const generate_events& events) {
  std::vector<std::string> notes;
  const job_spec job = corrected_job(r, notes);
  return corrected_simai_of(r, job, std::move(notes), events);
}

inline generate_result generate_corrected_chakra(const generate_request& r, const generate_events& events) {
  generate_result out;
  out.format = workload_format::chakra;
  const job_spec job = corrected_job(r, out.notes);
  validate_training(job);
  const chosen_compute compute = choose_compute(r, job, out.notes);
  out.iterations = requested_iterations(r);
  out.job = job;
  out.job->model = resolve(job.model);
  out.compute_model = compute.model->provenance();
  std::string name = corrected_simai_file_name(job, compute.gpu, r.flags);
  if (name.size() > 4 && name.ends_with(".txt")) name.resize(name.size() - 4);
  out.path = output_path_or_default(r.output, "results/chakra", name);
  if (out.path.find("empty") != std::string::npos)
    out.warnings.push_back(
        "the directory's path contains \"empty\": ASTRA-sim silently ignores a "
        "--comm-group-configuration path with that word in it; choose another name");
  if (events.planned) events.planned(out);
  const provenance origin = provenance_of(r);
  chakra_set_options o{
      .name = "workload",
      // "all" is every rank without a list of them (a world of 2^31 ranks is not held in memory).
      .ranks = r.ranks.empty() || r.ranks == "all" ? std::vector<std::uint64_t>{}
                                                   : parse_ranks(r.ranks, job.parallel.world_size),
      .schedule = {.iterations = out.iterations},
      .about =
          [&](json_writer& j) {
            j.member("compute_model", out.compute_model).member("iterations", out.iterations);
            j.key("provenance");
            write_json(j, origin);
          },
      .compute_pace = {}};
  for (const slow_rank& slow : r.slow_ranks) {
    if (slow.communication != 1)
      AICB_THROW(config_error("slow_rank", std::to_string(slow.rank),
                              "a Chakra trace times computation only: a slow link is ASTRA-sim's network "
                              "configuration (`aicb describe --slow-rank R:C:M` estimates what it costs)"));
    o.compute_pace[slow.rank] = std::max(o.compute_pace[slow.rank], slow.compute);
  }
  if (events.writing_set)
    events.writing_set(out.path, o.ranks.empty() ? job.parallel.world_size : o.ranks.size(),
                       estimate_chakra_set_bytes(job, chakra_groups(job), *compute.model, o));
  const chakra_set_result written = write_chakra_set(out.path, job, *compute.model, o);
  out.items = written.nodes;
  out.files = written.files;
  return out;
}

}  // namespace detail

/// What a person reads of a generated workload: its `about` (iterations, the rank and stage) and
/// `details` (bytes per group, the sidecar, how to check and simulate it).
inline void describe_generated(generate_result& r) {
  const auto n = [](std::uint64_t v) { return std::to_string(v); };
  if (r.format == workload_format::csv) {
    r.about = r.mode == compat_mode::aicb
                  ? "aicb, pipeline stage " + n(r.pipeline_stage)
                  : "corrected: rank " + n(r.rank) + ", pipeline stage " + n(r.pipeline_stage) + ", " +
                        n(r.iterations) + " iteration(s)";
    return;
  }
  if (r.format == workload_format::chakra) {
    r.about = "workload.RANK.et, comm_groups.json, manifest.json: " + n(r.iterations) + " iteration(s)";
    r.details = "simulate: AstraSim_Analytical_Congestion_Unaware --workload-configuration=" + r.path +
                "/workload --comm-group-configuration=" + r.path +
                "/comm_groups.json --system-configuration=... --network-configuration=... "
                "--remote-memory-configuration=...   (docs/chakra.md)\n";
    return;
  }
  r.about = n(r.iterations) + " iteration(s) x " + n(r.header.ga) + " micro batches";
  r.details.clear();
  for (comm_group g : all_comm_groups)
    if (const auto bytes_moved = r.written.bytes_by_group[static_cast<std::size_t>(g)]) {
      std::string group(to_string(g));
      group.resize(std::max<std::size_t>(group.size(), 6), ' ');
      r.details += "  " + group + " " + to_iec_string(bytes{bytes_moved}) + " in collectives\n";
    }
  if (r.sidecar) r.details += "wrote " + r.path + ".json: what the file holds and how it was made\n";
  r.details += "next: aicb lint " + r.path +
               " (checks it as SimAI's parser reads it); give the file to SimAI as its workload\n";
  if (!r.simai_command.empty())
    r.details += "simulate: " + r.simai_command + "   (the machines: docs/cluster.md)\n";
  if (!r.simai_caveat.empty()) r.details += "note: " + r.simai_caveat + "\n";
}

namespace detail {

// The writer the request's format and mode choose, after what no writer can do is refused.
inline generate_result generate_any(const generate_request& r, const generate_events& events) {
  const bool aicb = r.compat == compat_mode::aicb;
  if (r.format == workload_format::micro)
    AICB_THROW(
        config_error("format", "micro", "a MICRO file holds collective tests: aicb micro --format micro"));
  if (r.format == workload_format::chakra) {
    if (aicb)
      AICB_THROW(
          config_error("compat", "aicb", "aicb writes no Chakra traces; --format chakra is corrected only"));
    if (r.stage)
      AICB_THROW(config_error("pipeline_stage", std::to_string(*r.stage),
                              "Chakra traces are written per rank: choose them with --ranks"));
    return generate_corrected_chakra(r, events);
  }
  if (!r.ranks.empty())
    AICB_THROW(config_error("ranks", r.ranks,
                            "only --format chakra writes chosen ranks (SimAI and CSV files "
                            "describe one rank: --pp-stage)"));
  if (!r.slow_ranks.empty())
    AICB_THROW(
        config_error("slow_rank", std::to_string(r.slow_ranks.front().rank),
                     "only --format chakra writes a slow rank (a SimAI or CSV file is one workload every "
                     "rank runs; `aicb describe --slow-rank` estimates what it costs)"));
  if (aicb && !r.cluster.empty())
    AICB_THROW(config_error("cluster", r.cluster,
                            "aicb has no such option: --compat aicb writes aicb's file; name its GPU "
                            "with --gpu_type"));
  if (aicb && (!r.job.hf_config.empty() || !r.job.size.empty()))
    AICB_THROW(
        config_error(r.job.hf_config.empty() ? "size" : "hf_config",
                     r.job.hf_config.empty() ? r.job.size : r.job.hf_config,
                     "aicb has no such option: --compat aicb takes aicb's flags (-m, or the dimensions)"));
  if (r.format == workload_format::csv)
    return aicb ? generate_aicb_csv(r, events) : generate_corrected_csv(r, events);
  return aicb ? generate_aicb_simai(r, events) : generate_corrected_simai(r, events);
}

}  // namespace detail

/// Writes the workload a request asks for (see the file comment) and says what it did.
inline generate_result generate_workload(const generate_request& r, const generate_events& events = {}) {
  generate_result out = detail::generate_any(r, events);
  describe_generated(out);
  return out;
}

AICB_END_NAMESPACE
