// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// One Chakra set for a whole cluster running several jobs (aicb::placed_job_set, docs/jobs.md): a
/// trace per NPU — the rank its job runs there, its peers and members as NPUs of the cluster — and
/// for an NPU no job holds a trace of one computation of no time ("idle"), so that ASTRA-sim
/// simulates the cluster as it is. Each job's communicator groups keep their own numbers, offset past the
/// previous jobs', so no group ever mixes jobs; comm_groups.json lists them all, manifest.json says which job
/// holds which NPUs and which group numbers.
///
/// ```cpp
/// const aicb::placed_job_set set = aicb::place_jobs(aicb::read_job_set("jobs.json"));
/// aicb::write_chakra_job_set("cluster_traces", set, aicb::roofline_model("H100"));
/// ```

#include <aicb/checked.hpp>
#include <aicb/compute/job_set.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/config.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/io/protobuf_wire.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/version.hpp>

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

AICB_BEGIN_NAMESPACE

/// What write_chakra_job_set writes besides the traces' prefix: the schedule options of every job
/// (iterations) and more members of manifest.json.
struct chakra_job_set_options {
  std::string name = "workload";  ///< the files' prefix: NAME.NPU.et
  rank_schedule_options schedule{};
  std::function<void(json_writer&)> about{};
  std::function<void(std::uint64_t, std::uint64_t)> progress{};  ///< NPUs done, NPUs in all
};

namespace detail {

// An idle NPU's trace: the metadata and one computation of no time ("idle"). ASTRA-sim's feeder
// refuses a trace without a node ("No dependancy free nodes found, there might be deadlocks").
template <class Write>
chakra_rank_summary write_chakra_idle(Write& write, std::uint64_t npu, std::uint64_t world,
                                      const chakra_groups& numbers, const compute_model& compute) {
  chakra_rank_summary s =
      write_chakra_operations(write, std::vector<operation>{}, npu, world, numbers, compute);
  protobuf_message node, attr;
  node.add_uint(1, 0).add_string(2, "idle").add_uint(3,
                                                     static_cast<std::uint64_t>(chakra_node_type::compute));
  add_attr(node, attr, "is_cpu_op", chakra_attr_field::bool_val, 0);
  add_attr(node, attr, "num_ops", chakra_attr_field::int64_val, 0);
  add_attr(node, attr, "tensor_size", chakra_attr_field::uint64_val, 0);
  std::string bytes;
  append_delimited(bytes, node);
  write(std::string_view(bytes));
  s.bytes += bytes.size();
  ++s.nodes;
  ++s.compute;
  return s;
}

}  // namespace detail

/// About the bytes write_chakra_job_set writes: each job's set as estimate_chakra_set_bytes counts
/// it, plus an idle NPU's metadata.
[[nodiscard]] inline std::uint64_t estimate_chakra_job_set_bytes(const placed_job_set& set,
                                                                 const compute_model& compute,
                                                                 const chakra_job_set_options& options = {}) {
  std::uint64_t total = checked_mul(set.idle_gpus(), 64, "bytes of the set");
  for (const placed_job& j : set.jobs)
    total = checked_add(total,
                        estimate_chakra_set_bytes(j.job, chakra_groups(j.job), compute,
                                                  {.name = options.name, .schedule = options.schedule}),
                        "bytes of the set");
  return total;
}

/// Writes the traces of every NPU of `set` into `directory` (see the file comment): NAME.NPU.et for
/// each of the cluster's GPUs, comm_groups.json and manifest.json (schema "aicb.chakra/1", with the
/// jobs). The directory lands whole or not at all, as write_chakra_set's.
inline chakra_set_result write_chakra_job_set(const std::string& directory, const placed_job_set& set,
                                              const compute_model& compute,
                                              const chakra_job_set_options& options = {}) {
  if (options.name.empty() || options.name.find('/') != std::string::npos || options.name == "." ||
      options.name == "..")
    AICB_THROW(config_error("name", options.name, "the traces' prefix must be a plain file name"));
  std::vector<validated_job> checked;
  std::vector<chakra_groups> numbers;
  std::vector<std::uint64_t> offsets;  // each job's first group number, less one
  std::uint64_t next = 0;
  for (const placed_job& j : set.jobs) {
    checked.emplace_back(j.job);
    numbers.emplace_back(j.job);
    offsets.push_back(next);
    next = checked_add(next, numbers.back().count(), "communicator groups of the set");
  }
  const auto placement = [&](std::size_t k) {
    return chakra_placement{.npus = std::span<const std::uint64_t>(set.jobs[k].gpus),
                            .world = set.gpus,
                            .group_offset = offsets[k]};
  };
  atomic_directory out(directory, detail::why_not_a_previous_chakra_set);
  require_free_space(directory, estimate_chakra_job_set_bytes(set, compute, options));
  chakra_set_result result{.directory = directory};
  std::vector<std::set<group_id>> groups(set.jobs.size());
  for (std::uint64_t npu = 0; npu < set.gpus; ++npu) {
    atomic_file file(out.file(options.name + "." + std::to_string(npu) + ".et"),
                     {.remove_stale_temporaries = false}, 1 << 16);
    const auto write = [&](std::string_view bytes) { file.write(bytes); };
    const auto held = set.held(npu);
    const chakra_rank_summary s =
        held ? write_chakra_operations(write, rank_schedule(checked[held->job], held->rank, options.schedule),
                                       held->rank, set.jobs[held->job].job.parallel.world_size,
                                       numbers[held->job], compute, 1, placement(held->job))
             : detail::write_chakra_idle(write, npu, set.gpus, numbers.front(), compute);
    file.commit();
    result.add(s);
    if (held) groups[held->job].insert(s.groups.begin(), s.groups.end());
    if (options.progress) options.progress(result.files, set.gpus);
  }
  detail::chakra_comm_groups_writer group_file(out.file(chakra_comm_groups_file));
  for (std::size_t k = 0; k < set.jobs.size(); ++k)
    for (const group_id& g : groups[k]) {
      group_file.add(offsets[k] + numbers[k].id(g), numbers[k].members(g), placement(k));
      ++result.groups;
    }
  group_file.commit();
  json_writer m;
  m.begin_object()
      .member("schema", "aicb.chakra/1")
      .member("generator", std::string("aicb ") + AICB_VERSION_STRING);
  m.member("chakra_version", chakra_version).member("workload", options.name);
  m.member("comm_group_configuration", chakra_comm_groups_file).member("world_size", set.gpus);
  m.member("files", result.files).member("nodes", result.nodes).member("bytes", result.bytes);
  m.member("ranks", "all");
  m.member("all_gather_comm_size",
           "per-rank input (ASTRA-sim's convention: aicb's gathered size / group size)");
  m.key("groups").begin_object();
  for (std::size_t k = 0; k < set.jobs.size(); ++k)
    for (const group_id& g : groups[k])
      m.member(std::to_string(offsets[k] + numbers[k].id(g)), set.jobs[k].name + ": " + to_string(g));
  m.end_object();
  m.member("cluster", set.cluster.name).member("idle_gpus", set.idle_gpus());
  m.key("jobs").begin_array();
  for (std::size_t k = 0; k < set.jobs.size(); ++k) {
    m.begin_object().member("name", set.jobs[k].name).member("gpus", detail::gpu_ranges(set.jobs[k].gpus));
    m.member("first_group", offsets[k] + 1).member("groups", numbers[k].count());
    m.key("job");
    write_json(m, set.jobs[k].job);
    m.end_object();
  }
  m.end_array();
  if (options.about) options.about(m);
  m.end_object();
  write_file_atomically(out.file(chakra_manifest_file), m.str() + "\n", {.remove_stale_temporaries = false});
  out.commit();
  return result;
}

AICB_END_NAMESPACE
