// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::write_serving_steps — a served stream's operations for a simulator, bounded: every distinct
/// kind of step the run took (aicb::serving_step_kind) written once — as rank 0's SimAI inference file
/// or as every GPU's Chakra trace — with `steps.csv`, the mix: each file's kind, how many steps of it
/// the run took and their time. A simulator plays each file and weighs it by its count.
///
/// ```cpp
/// const aicb::serving_stream_report run = aicb::simulate_serving(model, layout, requests, compute, cluster);
/// aicb::write_serving_steps("results/steps", aicb::workload_format::simai, model,
///                           {{"", layout, run.step_kinds}}, compute);
/// ```
///
/// A kind stands for a step of one form: a decode step of `tokens` requests per DP-attention group
/// over `context` keys each; a prefill step of one prompt of `tokens` per group. A step that mixed
/// decoding requests and prompt chunks is written in its prefill form with all its tokens as one
/// prompt: its token-proportional work (projections, experts, collectives) is the step's, its
/// attention cores a single prompt's (the mix's time column is the stream's own pricing). With expert
/// parallelism a group's tokens are rounded up to a multiple of TP (DeepEP scatters them over TP).

#include <aicb/compute/model.hpp>
#include <aicb/compute/serving_stream.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/generate/inference_projection.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/model/serving.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/inference_step.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/workload/modes.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

AICB_BEGIN_NAMESPACE

/// One kind of instance of a deployment and the kinds of step it ran (a disaggregated deployment has
/// two: "prefill" and "decode"; an aggregated one, one with an empty name).
struct serving_steps_side {
  std::string name;
  serving_spec layout;
  std::vector<serving_step_kind> kinds;
};

/// A disaggregated deployment's KV-cache transfers: `count` requests' caches, `bytes` each on average
/// (the whole model's, one copy), `busy_s` their summed time, from a prefill instance of `from` to a
/// decode instance of `to`.
struct serving_kv_transfers {
  serving_spec from, to;
  double bytes = 0, busy_s = 0;
  std::uint64_t count = 0;
};

/// What write_serving_steps wrote.
struct serving_steps_written {
  std::string directory;
  std::uint64_t kinds = 0, files = 0;  ///< files: SimAI files, or Chakra rank files
  std::uint64_t steps = 0;             ///< steps the kinds stand for
};

/// The step a kind stands for on `layout` (see the file comment).
[[nodiscard]] inline serving_spec serving_step_of_kind(const serving_spec& layout,
                                                       const serving_step_kind& k) {
  serving_spec s = layout;
  std::uint64_t tokens = std::max<std::uint64_t>(k.tokens, 1);
  if (s.expert_parallel > 1)
    tokens = (tokens + s.tensor_parallel - 1) / s.tensor_parallel * s.tensor_parallel;
  s.phase = k.form;
  s.mtp_drafts = k.form == inference_phase::decode ? k.drafts : 0;
  if (k.form == inference_phase::decode) {
    s.batch = (tokens + k.drafts) / (1 + k.drafts) * s.attention_data_parallel;  // requests
    s.context = std::max<std::uint64_t>(k.context, 1);
    s.prompt = 0;
  } else {
    s.batch = s.attention_data_parallel;
    s.prompt = tokens;
    s.context = 0;
  }
  return s;
}

/// One KV-cache transfer as point-to-point operations, a Chakra set of one prefill instance (ranks
/// 0 … P−1) and one decode instance (ranks P …): each TP rank of each prefill DP-attention group sends
/// its share of one request's cache (`t.bytes` / TP: its heads' KV, or a TP-th of MLA's latent) to
/// the decode rank its index selects, as the engines' connectors move it (each GPU over its own NIC).
inline chakra_set_result write_kv_transfer_chakra(const std::string& directory, const model_spec& model,
                                                  const serving_kv_transfers& t, const compute_model& compute,
                                                  const std::vector<std::uint64_t>& ranks = {}) {
  const std::uint64_t senders = t.from.gpus(), receivers = t.to.gpus(), world = senders + receivers;
  const auto share =
      static_cast<std::uint64_t>(std::llround(t.bytes / static_cast<double>(t.from.tensor_parallel)));
  const chakra_groups numbers(serving_layout_job(model, t.to));  // no collectives: no group is named
  chakra_set_options options;
  options.name = "kv_transfer";
  options.ranks = ranks;
  return detail::write_chakra_set_of(
      directory, world, numbers, options, [&](auto&& write, std::uint64_t rank) {
        std::vector<operation> ops;
        const auto transfer = [&](op_type type, std::uint64_t peer, std::uint64_t tag) {
          operation op;
          op.index = ops.size();
          op.type = type;
          op.name = type == op_type::send ? "kv_cache_send" : "kv_cache_recv";
          op.phase = op_phase::forward;
          op.size = bytes(share);
          op.peer = peer;
          op.tag = tag;
          ops.push_back(op);
        };
        if (rank < senders) {
          transfer(op_type::send, senders + rank % receivers, rank);
        } else {
          for (std::uint64_t from = 0; from < senders; ++from)  // every sender whose index selects this rank
            if (senders + from % receivers == rank) transfer(op_type::recv, from, from);
        }
        return write_chakra_operations(write, ops, rank, world, numbers, compute);
      });
}

/// Writes each kind of each side into `directory` (created) in `format` (simai or chakra; `ranks`:
/// the GPUs of a Chakra set, empty for all) and the mix as `directory/steps.csv`; with `transfers`
/// (a disaggregated deployment's), one transfer as a Chakra set of sends and receives
/// (write_kv_transfer_chakra; SimAI's format has no operation between two jobs: listed in the mix
/// without a file).
inline serving_steps_written write_serving_steps(const std::string& directory, workload_format format,
                                                 const model_spec& model,
                                                 const std::vector<serving_steps_side>& sides,
                                                 const compute_model& compute,
                                                 const std::vector<std::uint64_t>& ranks = {},
                                                 const std::optional<serving_kv_transfers>& transfers = {}) {
  if (format != workload_format::simai && format != workload_format::chakra)
    AICB_THROW(
        config_error("steps_format", std::string(to_string(format)), "steps are written as simai or chakra"));
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec || !std::filesystem::is_directory(directory))
    AICB_THROW(io_error(directory, "cannot create the steps folder (" +
                                       (ec ? ec.message() : std::string("a file has its name")) + ")"));
  serving_steps_written out;
  out.directory = directory;
  std::string mix =
      "# aicb serve: every kind of step of the run, once; count: steps of that kind, busy_s: their time\n"
      "# a transfer row: prompt is one request's KV-cache bytes (mean), file - where SimAI cannot express "
      "it\n"
      "instance,kind,phase,tokens_per_group,context,batch,prompt,count,busy_s,share,file\n";
  double total_s = 0;
  for (const serving_steps_side& side : sides)
    for (const serving_step_kind& k : side.kinds)
      total_s += k.busy_s;
  for (const serving_steps_side& side : sides) {
    std::uint64_t index = 0;
    for (const serving_step_kind& k : side.kinds) {
      const serving_spec s = serving_step_of_kind(side.layout, k);
      const std::string phase(to_string(k.form));
      char name[128];
      std::snprintf(name, sizeof name, "%s%s%03llu-%s-t%llu", side.name.c_str(), side.name.empty() ? "" : "-",
                    static_cast<unsigned long long>(index++), phase.c_str(),
                    static_cast<unsigned long long>(k.tokens));
      std::string file = name;
      if (k.form == inference_phase::decode) file += "-c" + std::to_string(k.context);
      if (format == workload_format::simai) {
        file += ".txt";
        const inference_workload w = inference_records(inference_step(model, s), compute);
        simai_writer writer(directory + "/" + file, w.header, w.records.size());
        for (const record& each : w.records)
          writer.write(each);
        writer.finish();
        ++out.files;
      } else {
        chakra_set_options options;
        options.ranks = ranks;
        out.files += write_inference_chakra_set(directory + "/" + file, model, s, compute, options).files;
      }
      ++out.kinds;
      out.steps += k.count;
      char row[512];
      std::snprintf(row, sizeof row, "%s,%llu,%s,%llu,%llu,%llu,%llu,%llu,%.9g,%.6f,%s\n",
                    side.name.empty() ? "serving" : side.name.c_str(),
                    static_cast<unsigned long long>(index - 1), phase.c_str(),
                    static_cast<unsigned long long>(k.tokens), static_cast<unsigned long long>(k.context),
                    static_cast<unsigned long long>(s.batch), static_cast<unsigned long long>(s.prompt),
                    static_cast<unsigned long long>(k.count), k.busy_s,
                    total_s > 0 ? k.busy_s / total_s : 0.0, file.c_str());
      mix += row;
    }
  }
  if (transfers) {
    std::string file = "-";
    if (format == workload_format::chakra) {
      file = "kv-transfer";
      out.files += write_kv_transfer_chakra(directory + "/" + file, model, *transfers, compute, ranks).files;
    }
    char row[256];
    std::snprintf(row, sizeof row, "transfer,0,kv_cache,0,0,0,%.0f,%llu,%.9g,,%s\n", transfers->bytes,
                  static_cast<unsigned long long>(transfers->count), transfers->busy_s, file.c_str());
    mix += row;
  }
  atomic_file csv(directory + "/steps.csv");
  csv.write(mix);
  csv.commit();
  return out;
}

AICB_END_NAMESPACE
