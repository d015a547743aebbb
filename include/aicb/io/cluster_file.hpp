// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Cluster files (schema "aicb.cluster/1", docs/cluster.md, docs/schemas/cluster.schema.json): a
/// cluster descriptor in a file — the figures of an aicb::cluster_spec, and optionally the collective
/// times measured on those machines (aicb::measured_network) with where each figure came from and
/// what produced the file. `aicb run --sweep --calibrate -o cluster.json` writes one; every command
/// that takes `--cluster NAME` also takes `--cluster FILE.json` (aicb::resolve_cluster).
///
/// ```json
/// {
///   "schema": "aicb.cluster/1", "name": "my-h100s", "gpu": "H100", "gpus_per_node": 8,
///   "nvlink_gb_per_s": 352, "nvlink_latency_us": 2.1, "nics_per_node": 8, "nic_gb_per_s": 46.1,
///   "nic_latency_us": 4.8,
///   "curves": [{"collective": "all_reduce", "placement": "node", "group_size": 8,
///               "points": [[1024, 11.2], [2048, 11.4], …], "bands": [[0, 9, 10.9, 0], [10, 18, 14.5,
///               351.8]]}],
///   "sources": {"nvlink_gb_per_s": "measured: all_reduce over 8 ranks of a node at 256 MiB"},
///   "provenance": {"generator": "aicb 0.9.0", "command": "aicb run --sweep … --calibrate", "date": "…"}
/// }
/// ```
///
/// `host_us_per_launch` (optional) is the host's time to issue one kernel or collective; without it,
/// that of the preset of the file's GPU (33 µs for a GB200's Grace, aicb::grace_host_us_per_launch),
/// else an x86 server's 12.
///
/// A curve's points are [bytes, median µs]; its bands [first point, last point, latency µs, bus
/// bandwidth GB/s] (aicb::fit_bands; recomputed from the points when absent). A hand-written file
/// without curves describes machines no preset has.

#include <aicb/compute/cluster.hpp>
#include <aicb/compute/gpu.hpp>
#include <aicb/compute/measured_network.hpp>
#include <aicb/config.hpp>
#include <aicb/detail/input_file.hpp>
#include <aicb/enum_names.hpp>
#include <aicb/error.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/detail/json_document.hpp>
#include <aicb/json_writer.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The schema a cluster file declares.
inline constexpr std::string_view cluster_file_schema = "aicb.cluster/1";

/// A cluster described by a file, owning what an aicb::cluster_spec only views. See the file comment.
struct cluster_descriptor {
  std::string name = "custom";
  std::string description{};
  std::string gpu = "H100";  ///< GPU catalogue key
  std::uint64_t gpus_per_node = 8;
  double nvlink_gb_per_s = 0, nvlink_latency_us = 0;
  std::uint64_t nics_per_node = 8;
  double nic_gb_per_s = 0, nic_latency_us = 0;
  std::string simai_gpu_type{};
  double host_us_per_launch = cluster_spec{}.host_us_per_launch;  ///< see aicb::cluster_spec
  measured_network measured{};
  /// Where each figure came from: figure name → "measured: …" or "preset NAME (datasheet)".
  std::map<std::string, std::string> sources{};
  /// What produced the file: generator, command, date, backend, library, hosts (hashed), sweep.
  std::map<std::string, std::string> provenance{};

  /// The machines as the estimate takes them; views this descriptor (keep it alive and in place).
  [[nodiscard]] cluster_spec spec() const {
    cluster_spec c;
    c.name = name;
    c.description = description;
    c.gpu = gpu;
    c.gpus_per_node = gpus_per_node;
    c.nvlink_gb_per_s = nvlink_gb_per_s;
    c.nics_per_node = nics_per_node;
    c.nic_gb_per_s = nic_gb_per_s;
    c.nvlink_latency_us = nvlink_latency_us;
    c.nic_latency_us = nic_latency_us;
    c.simai_gpu_type = simai_gpu_type;
    c.host_us_per_launch = host_us_per_launch;
    c.measured = measured.curves.empty() ? nullptr : &measured;
    return c;
  }
};

/// The descriptor of a preset (its figures, each sourced to the preset) — what a calibration starts from.
[[nodiscard]] inline cluster_descriptor descriptor_of(const cluster_spec& c) {
  cluster_descriptor d;
  d.name = c.name;
  d.description = c.description;
  d.gpu = c.gpu;
  d.gpus_per_node = c.gpus_per_node;
  d.nvlink_gb_per_s = c.nvlink_gb_per_s;
  d.nvlink_latency_us = c.nvlink_latency_us;
  d.nics_per_node = c.nics_per_node;
  d.nic_gb_per_s = c.nic_gb_per_s;
  d.nic_latency_us = c.nic_latency_us;
  d.simai_gpu_type = c.simai_gpu_type;
  d.host_us_per_launch = c.host_us_per_launch;
  if (c.measured) d.measured = *c.measured;
  for (const char* figure : {"gpus_per_node", "nvlink_gb_per_s", "nvlink_latency_us", "nics_per_node",
                             "nic_gb_per_s", "nic_latency_us"})
    d.sources[figure] = "preset " + std::string(c.name) + " (datasheet)";
  d.sources["host_us_per_launch"] = "preset " + std::string(c.name) + " (measured host, docs/cluster.md)";
  return d;
}

/// The document "aicb.cluster/1" of `d`.
[[nodiscard]] inline std::string to_json(const cluster_descriptor& d) {
  json_writer j;
  j.begin_object().member("schema", cluster_file_schema).member("name", d.name);
  j.member("description", d.description).member("gpu", d.gpu);
  if (!d.simai_gpu_type.empty()) j.member("simai_gpu_type", d.simai_gpu_type);
  j.member("gpus_per_node", d.gpus_per_node).member("nvlink_gb_per_s", d.nvlink_gb_per_s);
  j.member("nvlink_latency_us", d.nvlink_latency_us).member("nics_per_node", d.nics_per_node);
  j.member("nic_gb_per_s", d.nic_gb_per_s).member("nic_latency_us", d.nic_latency_us);
  j.member("host_us_per_launch", d.host_us_per_launch);
  if (!d.measured.curves.empty()) {
    j.key("curves").begin_array();
    for (const measured_curve& c : d.measured.curves) {
      j.begin_object().member("collective", to_string(c.kind)).member("placement", to_string(c.where));
      j.member("group_size", c.group_size).member("max_fit_error", c.max_error());
      j.key("points").begin_array();
      for (const measured_point& p : c.points)
        j.begin_array().value(p.bytes).value(p.us).end_array();
      j.end_array().key("bands").begin_array();
      for (const fitted_band& b : c.bands)
        j.begin_array()
            .value(std::uint64_t{b.first})
            .value(std::uint64_t{b.last})
            .value(b.latency_us)
            .value(b.busbw_gb_per_s)
            .end_array();
      j.end_array().end_object();
    }
    j.end_array();
  }
  for (const auto* section : {&d.sources, &d.provenance}) {
    if (section->empty()) continue;
    j.key(section == &d.sources ? "sources" : "provenance").begin_object();
    for (const auto& [key, value] : *section)
      j.member(key, value);
    j.end_object();
  }
  j.end_object();
  return j.str() + "\n";
}

namespace detail {

inline std::map<std::string, std::string> string_map_of(const nlohmann::json& value,
                                                        const std::string& where) {
  if (!value.is_object()) AICB_THROW(config_error(where, value.dump(), "expected an object of strings"));
  std::map<std::string, std::string> out;
  for (const auto& [key, text] : value.items())
    out[key] = text_of(text, where + "." + key);
  return out;
}

inline measured_curve curve_of(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) AICB_THROW(config_error(where, j.dump(), "expected a curve object"));
  refuse_unknown_keys(j, where,
                      {"collective", "placement", "group_size", "points", "bands", "max_fit_error"});
  for (const char* key : {"collective", "placement", "group_size", "points"})
    if (!j.contains(key)) AICB_THROW(config_error(where + "." + key, "(missing)", "a curve needs this key"));
  measured_curve c;
  const std::string kind = text_of(j["collective"], where + ".collective");
  const auto parsed = from_string<collective>(kind);
  if (!parsed || (*parsed != collective::all_reduce && *parsed != collective::all_gather &&
                  *parsed != collective::reduce_scatter && *parsed != collective::all_to_all &&
                  *parsed != collective::send))
    AICB_THROW(config_error(where + ".collective", kind,
                            "expected all_reduce, all_gather, reduce_scatter, all_to_all or send"));
  c.kind = *parsed;
  const std::string place = text_of(j["placement"], where + ".placement");
  const auto placement = from_string<link_class>(place);
  if (!placement) AICB_THROW(config_error(where + ".placement", place, "expected node or rail"));
  c.where = *placement;
  c.group_size = whole_number(j["group_size"], where + ".group_size");
  if (c.group_size < 2 || c.group_size > (std::uint64_t{1} << 24))
    AICB_THROW(config_error(where + ".group_size", std::to_string(c.group_size),
                            "expected a group of 2 to 2^24 ranks"));
  const nlohmann::json& points = j["points"];
  if (!points.is_array() || points.empty() || points.size() > 4096)
    AICB_THROW(config_error(where + ".points", points.dump().substr(0, 40),
                            "expected 1 to 4096 [bytes, microseconds] pairs"));
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string at = where + ".points[" + std::to_string(i) + "]";
    const nlohmann::json& p = points[i];
    if (!p.is_array() || p.size() != 2)
      AICB_THROW(config_error(at, p.dump(), "expected [bytes, microseconds]"));
    const std::uint64_t bytes = whole_number(p[0], at + "[0]");
    const double us = number_of(p[1], at + "[1]");
    if (bytes == 0 || bytes > std::uint64_t{1} << 50)
      AICB_THROW(config_error(at + "[0]", std::to_string(bytes), "expected 1 B to 1 PiB"));
    if (!(us > 0 && us < 1e12))
      AICB_THROW(config_error(at + "[1]", p[1].dump(), "expected a time above 0 µs"));
    if (!c.points.empty() && bytes <= c.points.back().bytes)
      AICB_THROW(config_error(at + "[0]", std::to_string(bytes), "sizes must ascend"));
    c.points.push_back({bytes, us});
  }
  if (const auto it = j.find("bands"); it != j.end()) {
    if (!it->is_array() || it->empty())
      AICB_THROW(config_error(where + ".bands", it->dump().substr(0, 40), "expected an array of bands"));
    std::size_t next = 0;
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string at = where + ".bands[" + std::to_string(i) + "]";
      const nlohmann::json& b = (*it)[i];
      if (!b.is_array() || b.size() != 4)
        AICB_THROW(config_error(at, b.dump(), "expected [first, last, latency µs, bus bandwidth GB/s]"));
      fitted_band band{whole_number(b[0], at + "[0]"), whole_number(b[1], at + "[1]"),
                       number_of(b[2], at + "[2]"), number_of(b[3], at + "[3]")};
      if (band.first != next || band.last < band.first || band.last >= c.points.size())
        AICB_THROW(
            config_error(at, b.dump(), "bands must cover the points in order, each from the next point"));
      if (!(band.latency_us >= 0 && band.latency_us < 1e12) ||
          !(band.busbw_gb_per_s == 0 || (band.busbw_gb_per_s >= 1e-6 && band.busbw_gb_per_s < 1e9)))
        AICB_THROW(
            config_error(at, b.dump(),
                         "expected a latency of 0 to 10^12 µs and a bus bandwidth of 0 (latency only) or "
                         "10^-6 to 10^9 GB/s"));
      c.bands.push_back(band);
      next = band.last + 1;
    }
    if (next != c.points.size())
      AICB_THROW(
          config_error(where + ".bands", it->dump().substr(0, 40), "the bands must cover every point"));
  } else {
    c.bands = fit_bands(c);
  }
  return c;
}

}  // namespace detail

/// Parses a cluster file's text; `source` names it in errors. parse_error (line and column) when it
/// is not JSON; config_error naming the key for anything a cluster cannot be.
[[nodiscard]] inline cluster_descriptor parse_cluster_file(std::string_view text,
                                                           const std::string& source = "cluster.json") {
  const nlohmann::json doc = detail::parse_json_document(text, source);
  if (!doc.is_object())
    AICB_THROW(config_error("(document)", doc.dump().substr(0, 40), "a cluster file is a JSON object"));
  detail::refuse_unknown_keys(doc, "",
                              {"schema", "name", "description", "gpu", "simai_gpu_type", "gpus_per_node",
                               "nvlink_gb_per_s", "nvlink_latency_us", "nics_per_node", "nic_gb_per_s",
                               "nic_latency_us", "host_us_per_launch", "curves", "sources", "provenance"});
  const auto schema = doc.find("schema");
  if (schema == doc.end() || detail::text_of(*schema, "schema") != cluster_file_schema)
    AICB_THROW(config_error("schema", schema == doc.end() ? "(missing)" : schema->dump(),
                            "expected \"" + std::string(cluster_file_schema) + "\""));
  cluster_descriptor d;
  const auto text_field = [&](const char* key, std::string& out) {
    if (const auto it = doc.find(key); it != doc.end()) out = detail::text_of(*it, key);
  };
  text_field("name", d.name);
  text_field("description", d.description);
  text_field("gpu", d.gpu);
  text_field("simai_gpu_type", d.simai_gpu_type);
  if (d.name.empty() || d.name.size() > 256)
    AICB_THROW(config_error("name", d.name, "expected 1 to 256 characters"));
  d.gpu = std::string(require_gpu(d.gpu).name);
  const auto count = [&](const char* key, std::uint64_t& out) {
    const auto it = doc.find(key);
    if (it == doc.end()) AICB_THROW(config_error(key, "(missing)", "a cluster file needs this key"));
    out = detail::whole_number(*it, key);
    if (out == 0 || out > 4096) AICB_THROW(config_error(key, std::to_string(out), "expected 1 to 4096"));
  };
  const auto figure = [&](const char* key, double& out, bool positive) {
    const auto it = doc.find(key);
    if (it == doc.end()) AICB_THROW(config_error(key, "(missing)", "a cluster file needs this key"));
    out = detail::number_of(*it, key);
    if (!(positive ? out > 0 : out >= 0) || !(out < 1e9))
      AICB_THROW(config_error(key, it->dump(),
                              positive ? "expected a number above 0" : "expected a number of at least 0"));
  };
  count("gpus_per_node", d.gpus_per_node);
  count("nics_per_node", d.nics_per_node);
  figure("nvlink_gb_per_s", d.nvlink_gb_per_s, true);
  figure("nic_gb_per_s", d.nic_gb_per_s, true);
  figure("nvlink_latency_us", d.nvlink_latency_us, false);
  figure("nic_latency_us", d.nic_latency_us, false);
  if (doc.contains("host_us_per_launch")) {
    figure("host_us_per_launch", d.host_us_per_launch, false);
  } else if (const cluster_spec* preset = cluster_for_gpu(d.gpu)) {
    d.host_us_per_launch = preset->host_us_per_launch;
  }
  if (const auto it = doc.find("curves"); it != doc.end()) {
    if (!it->is_array() || it->size() > 256)
      AICB_THROW(config_error("curves", it->dump().substr(0, 40), "expected an array of at most 256 curves"));
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string where = "curves[" + std::to_string(i) + "]";
      measured_curve c = detail::curve_of((*it)[i], where);
      for (const measured_curve& seen : d.measured.curves)
        if (seen.kind == c.kind && seen.where == c.where)
          AICB_THROW(config_error(where,
                                  std::string(to_string(c.kind)) + " " + std::string(to_string(c.where)),
                                  "a collective is measured once per placement"));
      d.measured.curves.push_back(std::move(c));
    }
  }
  if (const auto it = doc.find("sources"); it != doc.end()) d.sources = detail::string_map_of(*it, "sources");
  if (const auto it = doc.find("provenance"); it != doc.end())
    d.provenance = detail::string_map_of(*it, "provenance");
  return d;
}

/// Reads the cluster file at `path` (at most 16 MiB). io_error when it cannot be read; the parse errors
/// of parse_cluster_file, naming the path.
[[nodiscard]] inline cluster_descriptor read_cluster_file(const std::string& path) {
  const detail::file_prefix in = detail::read_file_prefix(path, 16 << 20, "a cluster file");
  if (!in.whole) AICB_THROW(io_error(path, "is larger than 16 MiB: not a cluster file"));
  return parse_cluster_file(in.text, path);
}

/// Writes `d` to `path` atomically (a complete file or none).
inline void write_cluster_file(const cluster_descriptor& d, const std::string& path) {
  write_file_atomically(path, to_json(d));
}

namespace detail {

// The cluster files read so far, by path, for the life of the program: the one at `path` (read now
// when `read` and not read yet; nullptr when not read).
inline const cluster_descriptor* cluster_file_registry(const std::string& path, bool read = false) {
  static std::mutex guard;
  static std::map<std::string, std::unique_ptr<const cluster_descriptor>> loaded;
  const std::lock_guard<std::mutex> lock(guard);
  const auto it = loaded.find(path);
  if (it != loaded.end()) return it->second.get();
  if (!read) return nullptr;
  auto d = std::make_unique<const cluster_descriptor>(read_cluster_file(path));
  return loaded.emplace(path, std::move(d)).first->second.get();
}

}  // namespace detail

/// Whether `cluster` (a `--cluster` value) names a file rather than a preset: it ends in ".json" or
/// holds a path separator.
[[nodiscard]] inline bool names_cluster_file(std::string_view cluster) noexcept {
  return cluster.find('/') != std::string_view::npos ||
         (cluster.size() > 5 && cluster.substr(cluster.size() - 5) == ".json");
}

/// The machines a `--gpu` and `--cluster` pair names, as aicb::choose_cluster, where `cluster` may also
/// be a cluster file: read once per path and kept for the life of the program (the returned spec views
/// it); a `gpu` given replaces the file's GPU, as it replaces a preset's.
[[nodiscard]] inline cluster_spec resolve_cluster(std::string_view gpu, std::string_view cluster) {
  if (!names_cluster_file(cluster)) return choose_cluster(gpu, cluster);
  const cluster_descriptor* d = detail::cluster_file_registry(std::string(cluster), true);
  cluster_spec c = d->spec();
  if (!gpu.empty()) c.gpu = require_gpu(gpu).name;
  return c;
}

/// The cluster file a `--cluster` value names, read once and kept as resolve_cluster keeps it; nullptr
/// for a preset. Where each of its figures came from (`sources`) and what produced it.
[[nodiscard]] inline const cluster_descriptor* loaded_cluster_file(std::string_view cluster) {
  if (!names_cluster_file(cluster)) return nullptr;
  return detail::cluster_file_registry(std::string(cluster), true);
}

AICB_END_NAMESPACE
