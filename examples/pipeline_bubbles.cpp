// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A picture of three pipeline schedules on ideal stages: 1F1B, zero-bubble H1 and DualPipe over 4
// stages and 8 micro batches, every forward (F), input gradient (b), weight gradient (W) or whole
// backward (B) one time unit long — and the bubble each leaves. DualPipe's micro batches 0-3 enter
// at stage 0, 4-7 at stage 3.
//! [pipeline_bubbles]
#include <aicb/schedule/pipeline.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

// One row per stage, three characters per time unit: the step's letter and micro batch, '.' idle.
void draw(const char* title, aicb::pipeline_options o) {
  std::vector<std::string> rows(o.stages);
  const aicb::pipeline_time t = aicb::time_pipeline(
      o, {.forward = 1, .input_grad = 1, .weight_grad = 1},
      [&](std::uint64_t stage, const aicb::pipeline_step& step, double start, double end) {
        std::string& row = rows[stage];
        const auto at = static_cast<std::size_t>(std::lround(start)) * 3;
        if (row.size() < at) row.append(at - row.size(), ' ');
        const char letter = step.what == aicb::pipeline_step::kind::forward  ? 'F'
                            : step.what == aicb::pipeline_step::kind::weight ? 'W'
                            : step.split                                     ? 'b'
                                                                             : 'B';
        for (auto unit = std::lround(start); unit < std::lround(end); ++unit)
          row += std::string(1, letter) + std::to_string(step.microbatch) + " ";
      });
  std::printf("%s: iteration %.0f units, bubble %.0f\n", title, t.iteration, t.bubble);
  for (std::uint64_t s = 0; s < o.stages; ++s) {
    std::string& row = rows[s];
    for (std::size_t i = 0; i < row.size(); i += 3)
      if (row[i] == ' ') row[i + 1] = '.';
    row.erase(row.find_last_not_of(' ') + 1);
    std::printf("  stage %llu  %s\n", static_cast<unsigned long long>(s), row.c_str());
  }
}

}  // namespace

int main() {
  draw("1F1B", {.stages = 4, .microbatches = 8});
  draw("ZB-H1", {.stages = 4, .microbatches = 8, .schedule = aicb::pipeline_schedule_kind::zb_h1});
  draw("DualPipe", {.stages = 4, .microbatches = 8, .schedule = aicb::pipeline_schedule_kind::dualpipe});
}
//! [pipeline_bubbles]
