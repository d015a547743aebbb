// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::compute_model — the one interface generators ask for the duration of an operation, and
/// the simplest model, `constant_model` (aicb's placeholder of 1 ns).
///
/// Three models implement it: constant_model (here), roofline_model (GPU catalogue × efficiency,
/// aicb/compute/roofline.hpp) and aiob_model (a measured profile, aicb/compute/aiob_model.hpp).
/// A model answers durations only: the collectives of a job never depend on which model is used.
/// Every model states where its numbers come from (provenance()), and generators write that into
/// their outputs.

#include <aicb/config.hpp>
#include <aicb/model/compute_op.hpp>
#include <aicb/units/duration.hpp>

#include <string>

AICB_BEGIN_NAMESPACE

/// Durations of GPU operations.
class compute_model {
 public:
  virtual ~compute_model() = default;

  /// How long `op` takes on one GPU, in nanoseconds.
  [[nodiscard]] virtual nanoseconds duration(const compute_op& op) const = 0;

  /// Where the durations come from, in one line ("roofline: H100 …", "aiob: Example.txt …").
  [[nodiscard]] virtual std::string provenance() const = 0;
};

/// Every operation takes the same time — aicb's placeholder when it has no profile (1 ns).
class constant_model final : public compute_model {
 public:
  explicit constant_model(nanoseconds each = nanoseconds{1}) : each_(each) {}

  [[nodiscard]] nanoseconds duration(const compute_op&) const override { return each_; }
  [[nodiscard]] std::string provenance() const override {
    return "constant: every operation " + std::to_string(each_.count()) + " ns (no compute model)";
  }

 private:
  nanoseconds each_;
};

AICB_END_NAMESPACE
