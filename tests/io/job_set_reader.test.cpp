// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include "job_set_documents.hpp"

#include <aicb/io/job_set_reader.hpp>

#include <catch2/catch.hpp>

TEST_CASE("job set reader: errors name the key, the value and the rule", "[jobs]") {
  CHECK_THAT(aicb_test::placing_message(R"({"schema": "aicb.jobs/2", "gpus": 16, "jobs": []})"),
             Catch::Contains("schema = \"aicb.jobs/2\""));
  CHECK_THAT(aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 16, "gpu": 16, "jobs": []})"),
             Catch::Contains("gpu = 16") && Catch::Contains("a string"));
  CHECK_THAT(aicb_test::placing_message(
                 R"({"schema": "aicb.jobs/1", "gpus": 16, "packing": "dense", "jobs": [{}]})"),
             Catch::Contains("packing = dense"));
  CHECK_THAT(aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 16, "job": []})"),
             Catch::Contains("did you mean jobs?"));
  CHECK_THAT(aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "gpus": "0-7", "job": {"model": "llama3-8b", "tensor-paralel": 8}}]})"),
             Catch::Contains("jobs.x.tensor_paralel") && Catch::Contains("did you mean tensor_parallel?"));
  CHECK_THAT(aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "gpus": "0-7", "job": {"model": ["llama3-8b"]}}]})"),
             Catch::Contains("jobs[0].job.model"));
  CHECK_THAT(aicb_test::placing_message("{\"schema\": \"aicb.jobs/1\",\n  \"gpus\": 16,,}"),
             Catch::Contains("jobs.json:2:"));
}
