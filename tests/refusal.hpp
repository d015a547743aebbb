// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// What validate says of a job: nothing when it holds, else the message naming the field, the value
// and the rule — for tests of the rules' messages.
#pragma once

#include <aicb/model/job.hpp>

#include <string>

namespace aicb_test {

/// The message validate throws for `job`, or "" when the job holds.
inline std::string refusal(const aicb::job_spec& job) {
  try {
    aicb::validate(job);
    return "";
  } catch (const aicb::config_error& e) {
    return e.what();
  }
}

}  // namespace aicb_test
