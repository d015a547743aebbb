// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::provenance — what produced a file, recorded in it: the generator and its version, the
/// command (the tool's command line; empty for a library call that gives none), and every input file
/// read with a hash of its bytes (64-bit FNV-1a: it tells two inputs apart, it is not a signature).
/// Workload sidecars and Chakra manifests carry one; run results and cluster files carry theirs with
/// the date and the machines (aicb/commands/run.hpp). Generated workloads are functions of their
/// inputs, so theirs has no date: the same command on the same inputs writes the same bytes.
///
/// ```cpp
/// aicb::provenance p{.command = "aicb generate --hf-config config.json"};
/// p.add_input("config.json");            // "config.json": "fnv1a64:5f0c…"
/// aicb::write_json(writer, p);           // {"generator": "aicb 0.1.0", "command": …, "inputs": {…}}
/// ```

#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/version.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The 64-bit FNV-1a hash of the file at `path`, as "fnv1a64:" and 16 hex digits; io_error when it
/// cannot be read.
[[nodiscard]] inline std::string content_hash(const std::string& path) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!in) AICB_THROW(io_error(path, "cannot be read to record its hash"));
  std::uint64_t hash = 14695981039346656037ull;
  unsigned char block[1 << 16];
  for (std::size_t got; (got = std::fread(block, 1, sizeof block, in.get())) > 0;)
    for (std::size_t i = 0; i < got; ++i)
      hash = (hash ^ block[i]) * 1099511628211ull;
  if (std::ferror(in.get())) AICB_THROW(io_error(path, "cannot be read to record its hash"));
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return text;
}

/// What produced a file. See the file comment.
struct provenance {
  std::string command{};                                      ///< the command line; empty: not known
  std::vector<std::pair<std::string, std::string>> inputs{};  ///< path → content_hash

  /// Records the file at `path` as an input (once).
  void add_input(const std::string& path) {
    for (const auto& [seen, _] : inputs)
      if (seen == path) return;
    inputs.emplace_back(path, content_hash(path));
  }
};

/// `p` as a JSON object: generator (aicb and its version), command (when known), inputs (path → hash).
inline void write_json(json_writer& w, const provenance& p) {
  w.begin_object().member("generator", "aicb " AICB_VERSION_STRING);
  if (!p.command.empty()) w.member("command", p.command);
  w.key("inputs").begin_object();
  for (const auto& [path, hash] : p.inputs)
    w.member(path, hash);
  w.end_object().end_object();
}

AICB_END_NAMESPACE
