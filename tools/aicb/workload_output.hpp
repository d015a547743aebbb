// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Writing a SimAI workload from the command line, for every subcommand that writes one: the size
// estimated, printed and checked against the free space first; the output checked against the
// inputs; the workload and its sidecar committed together.
#pragma once

#include <aicb/checked.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/units/bytes.hpp>
#include <aicb/workload/record.hpp>
#include <aicb/workload/record_stream.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace aicb_tool {

// Creates the folder a default output goes to (results/workload/ …); io_error when it cannot.
inline void make_output_folder(const std::string& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec || !std::filesystem::is_directory(folder))
    throw aicb::io_error(folder, "cannot create the output folder (" +
                                     (ec ? ec.message() : std::string("a file has its name")) +
                                     "); give -o FILE to write elsewhere");
}

// What the output flags of a writing subcommand say.
struct output_settings {
  bool quiet = false;
  bool no_space_check = false;
};

struct written {
  std::uint64_t records = 0;
  std::array<std::uint64_t, aicb::all_comm_groups.size()> bytes_by_group{};  // per file, all records
  std::vector<std::string> warnings;
};

// The sidecar's content, from what was written.
using sidecar_text = std::function<std::string(const written&)>;

// Writes a workload, and its sidecar FILE.json unless `sidecar` is empty: both land, or neither (a
// sidecar that cannot be written leaves no new workload beside an old sidecar). Before anything is
// written the size is estimated, printed and checked against the free space, and the output is
// checked against the inputs; `--no-space-check` (no_space_check) skips the free-space test.
template <class Workload>
written write_workload(const Workload& w, const std::string& path, bool strict, const output_settings& o,
                       const std::vector<std::string>& inputs, const sidecar_text& sidecar = {}) {
  const aicb::output_options options{inputs};
  std::optional<aicb::atomic_file> side;
  if (sidecar && std::filesystem::path(path).filename().string().size() + 5 > 255)
    throw aicb::io_error(path + ".json",
                         "the sidecar's name would be longer than 255 bytes, the most a file "
                         "system allows: shorten the output's name, or give --no-sidecar");
  if (sidecar) side.emplace(path + ".json", options);  // opened first: a bad sidecar name costs nothing
  aicb::simai_writer out(path, w.header(), w.size(), strict, options);  // refuses what SimAI cannot read
  const std::uint64_t estimate = aicb::estimate_simai_bytes(w.header(), w.size(), w.records());
  if (!o.no_space_check) aicb::require_free_space(out.file().target(), estimate);
  if (!o.quiet)
    std::printf("writing %s: %llu records, about %s\n", path.c_str(),
                static_cast<unsigned long long>(w.size()),
                aicb::to_iec_string(aicb::bytes{estimate}).c_str());
  written result;
  const auto count = [&](const aicb::record& r, std::uint64_t times) {
    for (const aicb::phase* p : {&r.forward, &r.input_grad, &r.weight_grad})
      if (p->comm.active()) {
        std::uint64_t& sum = result.bytes_by_group[static_cast<std::size_t>(p->comm.group)];
        sum = aicb::checked_add(sum, aicb::checked_mul(p->comm.size.count(), times, "bytes in collectives"),
                                "bytes in collectives of the file");
      }
  };
  if constexpr (requires { w.for_each_run([](const aicb::record_run&) {}); }) {
    // Repeated micro batches: formatted once, copied.
    w.for_each_run([&](const aicb::record_run& run) {
      out.write(run.records, run.times);
      result.records = aicb::checked_add(
          result.records, aicb::checked_mul(run.records.size(), run.times, "records"), "records");
      for (const aicb::record& r : run.records)
        count(r, run.times);
    });
  } else {
    auto records = w.records();
    for (const aicb::record& r : records) {
      out.write(r);
      ++result.records;
      count(r, 1);
    }
  }
  out.finish(false);
  if (side) {
    side->write(sidecar(result));
    aicb::commit_together({&out.file(), &*side});
  } else {
    out.file().commit();
  }
  return result;
}

}  // namespace aicb_tool
