// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for `aicb run`'s options: the input is a command line, one argument a line. Any
// input must either be refused (a usage error from the flag parser, or aicb::error naming the
// option) or give options a replay can use — a finite timeout in (0 s, a week], a finite compute
// scale in [0, 10^6], at least one measured iteration, a sweep of sizes within 1 B … 1 PB — never a
// crash or a value that is converted out of range.
#include "../../tools/aicb/run_command.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args{"aicb-run"};
  for (std::size_t begin = 0; begin <= input.size();) {
    const std::size_t end = std::min(input.find('\n', begin), input.size());
    if (end > begin) args.emplace_back(input.substr(begin, end - begin));
    begin = end + 1;
  }
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  CLI::App app{"aicb run"};
  aicb_tool::run_options o;
  aicb_tool::add_run_options(app, o);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::Error&) {
    return 0;  // a usage error, reported by the parser
  }
  try {
    const aicb::run_request r = aicb_tool::to_request(o);
    if (!(r.timeout_s > 0 && r.timeout_s <= 7 * 24 * 3600.0) || !std::isfinite(r.compute_scale) ||
        r.compute_scale < 0 || r.compute_scale > aicb::max_replay_compute_scale || r.repeat == 0 ||
        r.max_buffer == 0 || r.sizes.low == 0 || r.sizes.high < r.sizes.low)
      __builtin_trap();
    if (!r.sweep.empty()) {
      const aicb::prepared_run p = aicb::prepare_run(r, 4, 0);
      for (const aicb::operation& op : p.ops)
        if (op.size.count() == 0 || op.size.count() > 1'000'000'000'000'000ULL) __builtin_trap();
    }
  } catch (const aicb::error&) {
    // Refused with a message naming the option: the expected outcome for bad values.
  }
  return 0;
}
