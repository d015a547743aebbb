// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Job set documents the job-set tests share, and what placing one says.
#pragma once

#include <aicb/compute/job_set.hpp>
#include <aicb/error.hpp>
#include <aicb/io/job_set_reader.hpp>

#include <string>

namespace aicb_test {

// Two different jobs on 16 GPUs: a dense TP 2 x PP 2 x DP 2 job on GPUs 0-7, a MoE job packed after it.
inline const std::string two_jobs = R"({
  "schema": "aicb.jobs/1",
  "gpus": 16,
  "cluster": "dgx-h100",
  "jobs": [
    {"name": "dense", "gpus": "0-7",
     "job": {"model": "llama3-8b", "num-layers": 4, "tp": 2, "pp": 2, "global_batch": 8, "mbs": 1}},
    {"name": "moe",
     "job": {"model": "mixtral-8x7b", "num_layers": 2, "world_size": 8, "ep": 4, "tp": 2, "sp": true,
             "global_batch": 8, "micro_batch": 1}}
  ]
})";

// Two 12-GPU jobs packed contiguously on three one-node leaves with uplinks oversubscribed `over`:1. Job a
// fills node 0 and half of node 1, job b the rest of node 1 and node 2: they meet on node 1's leaf.
inline std::string leaf_sharing_jobs(const std::string& over) {
  return R"({"schema": "aicb.jobs/1", "gpus": 24, "packing": "contiguous",
    "nodes_per_leaf": 1, "oversubscription": )" +
         over + R"(, "jobs": [
    {"name": "a", "job": {"model": "llama3-8b", "num_layers": 2, "world_size": 12, "tp": 4, "global_batch": 6}},
    {"name": "b", "job": {"model": "llama3-8b", "num_layers": 2, "world_size": 12, "tp": 2, "global_batch": 6}}]})";
}

// What placing a job set document says: the error's message, or "(accepted)".
inline std::string placing_message(const std::string& document) {
  try {
    (void)aicb::place_jobs(aicb::parse_job_set(document));
  } catch (const aicb::error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace aicb_test
