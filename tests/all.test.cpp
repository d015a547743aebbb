// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// all.hpp is the umbrella and the readers: a job built from a request, generated and linted.
#include <aicb/all.hpp>

#include <catch2/catch.hpp>

TEST_CASE("all.hpp: request, generate and lint with one include", "[umbrella]") {
  const aicb::job_request request{
      .model = "llama3-8b",
      .fields = {{"world_size", "16"}, {"tensor_parallel", "2"}, {"global_batch", "32"}}};
  const aicb::job_spec job = aicb::build_job(request).job;
  CHECK(aicb::data_parallel(job) == 8u);
  const aicb::constant_model compute;
  const aicb::simai_projection workload(job, compute);
  {
    aicb::simai_writer out("all_header.txt", workload.header(), workload.size());
    for (const aicb::record& r : workload.records())
      out.write(r);
    out.finish();
  }
  const aicb::lint_result lint = aicb::lint_simai("all_header.txt");
  CHECK(lint.errors == 0);
  CHECK(lint.records == workload.size());
}
