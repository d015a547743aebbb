// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::aiob_model — durations from a measured AIOB profile, one lookup per operation.
///
/// Each operation role is looked up under its own name first (`attention_qkv`, as aicb's profiler
/// writes version 2 profiles), then under aicb's section names (`atten_qkv`, `mlp_linear_1`, …;
/// docs/aiob.md has the table). Values are the sections' `time_gpu_avg` in µs, × 1000 to ns.
///
/// Backward passes: a section's `# backward_avg_us:` (version 2) is the whole backward time — split
/// evenly between input and weight gradient for GEMMs. Without it (every aicb profile) the stated
/// rule is: a GEMM's input-gradient and weight-gradient products each take the forward time (same
/// FLOPs); fused attention's backward takes 2.5 × forward (FlashAttention-2's FLOP ratio); norms and
/// element-wise kernels take 2 × forward for the input gradient (they read the input and the
/// gradient) and nothing for the weight gradient.
///
/// A role's section times the role's own computation — the projection's GEMM, the norm, the
/// attention kernel, the activation (profiled_kind()). Other operations that carry the role (a
/// projection's query-key or latent norm, the router's softmax, top-k and auxiliary loss, the loss
/// after the logits, a recurrent mixer's convolution and scan) are not in it: pricing them as the
/// section's kernel would count it again. They, the MoE dispatcher's permutations (each of a shape of
/// its own, where a profile times one), and every role the profile does not cover go to the fallback
/// model when one is given (reported by missing_roles() and unprofiled()), and are an error otherwise —
/// never a silent default.
///
/// aicb's own, layer-level arithmetic (sums, halving, legacy keys) is aicb_cache_from_profile() in
/// aicb/compute/aiob_profile.hpp; the aicb-compatible generator uses that.

#include <aicb/compute/aiob_profile.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/model/compute_op.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/options.hpp>

#include <charconv>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Durations from an AIOB profile; see the file comment.
class aiob_model final : public compute_model {
 public:
  /// @param profile  the profile (its sections in µs)
  /// @param source   where it came from (a file name), for provenance and errors
  /// @param fallback model for roles the profile does not cover (none: such a role is an error)
  aiob_model(aiob_profile profile, std::string source, const compute_model* fallback = nullptr)
      : profile_(std::move(profile)), source_(std::move(source)), fallback_(fallback) {}

  [[nodiscard]] nanoseconds duration(const compute_op& op) const override {
    const auto forward = forward_us(op.role);
    if (!forward) {
      if (!fallback_)
        AICB_THROW(config_error("aiob profile", source_,
                                "has no section for operation " + std::string(to_string(op.role)) +
                                    " (docs/aiob.md lists the section names read)"));
      note_missing(op.role);
      return fallback_->duration(op);
    }
    if (!profiled(op)) {  // the role's section times another kernel (see the file comment)
      if (!fallback_)
        AICB_THROW(config_error("aiob profile", source_,
                                "its " + std::string(to_string(op.role)) + " section times " +
                                    profiled_text(op.role) + ", not its " + std::string(to_string(op.kind)) +
                                    " operations: give a fallback model"));
      note_unprofiled(op.role, op.kind);
      return fallback_->duration(op);
    }
    double us = *forward;
    if (op.pass != pass_kind::forward) {
      const auto backward = backward_us(op.role);
      const bool gemm = op.kind == op_kind::gemm;
      if (backward)
        us = gemm ? *backward / 2 : (op.pass == pass_kind::input_grad ? *backward : 0.0);
      else if (gemm)
        us = *forward;
      else if (op.kind == op_kind::attention)
        us = op.pass == pass_kind::input_grad ? 2.5 * *forward : 0.0;
      else
        us = op.pass == pass_kind::input_grad ? 2 * *forward : 0.0;
    }
    return checked_ns(us * 1000, "profile time of " + std::string(to_string(op.role)));
  }

  [[nodiscard]] std::string provenance() const override {
    std::string text = "aiob: " + source_;
    if (profile_.version() == 2) {
      text += " (v2";
      for (const char* key : {"gpu", "dtype", "tool", "date", "iterations"})
        if (const auto v = profile_.provenance(key)) text += std::string(", ") + key + " " + std::string(*v);
      text += ")";
    } else {
      text += " (v1: GPU, dtype and shapes not recorded";
      if (profile_.train_iter)
        text += "; " + std::to_string(*profile_.train_iter) + " forward iterations profiled";
      text += ")";
    }
    if (fallback_) text += "; uncovered operations: " + fallback_->provenance();
    return text;
  }

  /// Roles that were not in the profile and went to the fallback model.
  [[nodiscard]] const std::vector<op_role>& missing_roles() const noexcept { return missing_; }
  /// Operations of a covered role that its section does not time (their role and kind), which went to
  /// the fallback model.
  [[nodiscard]] const std::vector<std::pair<op_role, op_kind>>& unprofiled() const noexcept {
    return unprofiled_;
  }
  /// The kind of computation a role's section times (none: no section is read for its operations —
  /// the MoE permutations, each of its own shape).
  [[nodiscard]] static constexpr std::optional<op_kind> profiled_kind(op_role role) noexcept {
    switch (role) {
      case op_role::embedding:
        return op_kind::embedding;
      case op_role::input_norm:
      case op_role::post_attention_norm:
      case op_role::final_norm:
        return op_kind::norm;
      case op_role::attention_core:
        return op_kind::attention;
      case op_role::mlp_activation:
      case op_role::moe_activation:
      case op_role::residual:
      case op_role::rotary:
        return op_kind::elementwise;
      case op_role::optimizer:
        return op_kind::optimizer;
      case op_role::moe_permute:
        return std::nullopt;
      case op_role::attention_qkv:
      case op_role::attention_out:
      case op_role::mla_q_down:
      case op_role::mla_q_up:
      case op_role::mla_kv_down:
      case op_role::mla_kv_up:
      case op_role::mlp_fc1:
      case op_role::mlp_fc2:
      case op_role::moe_router:
      case op_role::moe_fc1:
      case op_role::moe_fc2:
      case op_role::logits:
      case op_role::mtp_projection:
      case op_role::attention_index:
        return op_kind::gemm;
    }
    return std::nullopt;
  }
  /// What a role's section times, in words ("its gemm", or "one of its kernels" for the MoE
  /// permutations).
  [[nodiscard]] static std::string profiled_text(op_role role) {
    const std::optional<op_kind> kind = profiled_kind(role);
    return kind ? "its " + std::string(to_string(*kind))
                : std::string("one of its kernels, each of its own shape");
  }
  /// Whether `op` is what its role's section times.
  [[nodiscard]] static constexpr bool profiled(const compute_op& op) noexcept {
    const std::optional<op_kind> kind = profiled_kind(op.role);
    return kind && *kind == op.kind;
  }
  [[nodiscard]] const aiob_profile& profile() const noexcept { return profile_; }

 private:
  // Section names tried for a role: the role's own name first, then aicb's.
  static std::vector<std::vector<std::string_view>> candidates(op_role role) {
    switch (role) {
      case op_role::embedding:
        return {{"embedding"}, {"Emb"}};
      case op_role::input_norm:
        return {{"input_norm"}, {"layernorm"}};
      case op_role::attention_qkv:
        return {{"attention_qkv"}, {"atten_qkv"}};
      case op_role::attention_core:
        return {{"attention_core"},
                {"atten_flash"},
                {"atten_core_qk", "atten_core_softmax", "atten_core_contex"},
                {"attention_kv_column"}};
      case op_role::attention_out:
        return {{"attention_out"}, {"atten_linear"}, {"attention_o_row"}};
      case op_role::mla_q_down:
        return {{"mla_q_down"}, {"attention_linear_q_lora"}};
      case op_role::mla_q_up:
        return {{"mla_q_up"}, {"attention_q_column"}};
      case op_role::mla_kv_down:
        return {{"mla_kv_down"}, {"attention_linear_kv_lora"}};
      case op_role::mla_kv_up:
        return {{"mla_kv_up"}};
      case op_role::post_attention_norm:
        return {{"post_attention_norm"}, {"layernorm2"}};
      case op_role::mlp_fc1:
        return {{"mlp_fc1"}, {"mlp_linear_1"}};
      case op_role::mlp_activation:
        return {{"mlp_activation"}, {"mlp_gelu"}};
      case op_role::mlp_fc2:
        return {{"mlp_fc2"}, {"mlp_linear_2"}};
      case op_role::moe_router:
        return {{"moe_router"}};
      case op_role::moe_fc1:
        return {{"moe_fc1"}, {"mlp_linear_1"}};
      case op_role::moe_activation:
        return {{"moe_activation"}, {"mlp_gelu"}};
      case op_role::moe_fc2:
        return {{"moe_fc2"}, {"mlp_linear_2"}};
      case op_role::final_norm:
        return {{"final_norm"}, {"layernorm_post"}};
      case op_role::logits:
        return {{"logits"}, {"logit_time"}};
      case op_role::optimizer:
        return {{"optimizer"}};
      case op_role::mtp_projection:
        return {{"mtp_projection"}};
      case op_role::residual:  // aicb's profiles time no residual kernel: the fallback prices it
        return {{"residual"}};
      case op_role::moe_permute:  // nor the MoE dispatcher's permutations
        return {{"moe_permute"}};
      case op_role::attention_index:  // nor DeepSeek sparse attention's indexer
        return {{"attention_index"}};
      case op_role::rotary:  // nor the rotary position embedding
        return {{"rotary"}};
    }
    return {};
  }

  // The first candidate whose sections all exist, their averages summed (µs).
  std::optional<double> forward_us(op_role role) const {
    for (const auto& names : candidates(role)) {
      double sum = 0;
      bool found = true;
      for (std::string_view name : names) {
        const aiob_section* s = profile_.find(name);
        const auto value = s ? s->stat("time_gpu_avg") : std::nullopt;
        if (!value) {
          found = false;
          break;
        }
        sum += *value;
      }
      if (found) return sum;
    }
    return std::nullopt;
  }
  std::optional<double> backward_us(op_role role) const {
    // Backward times belong to the sections forward times came from.
    for (const auto& names : candidates(role)) {
      bool all = true;
      for (std::string_view name : names)
        all = all && profile_.find(name);
      if (!all) continue;
      double sum = 0;
      for (std::string_view name : names) {
        const auto text = profile_.find(name)->note("backward_avg_us");
        const auto value = text ? to_double(*text) : std::nullopt;
        if (!value) return std::nullopt;
        sum += *value;
      }
      return sum;
    }
    return std::nullopt;
  }
  static std::optional<double> to_double(std::string_view text) {
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || !(value >= 0)) return std::nullopt;
    return value;
  }
  void note_missing(op_role role) const {
    for (op_role r : missing_)
      if (r == role) return;
    missing_.push_back(role);
  }
  void note_unprofiled(op_role role, op_kind kind) const {
    for (const auto& [r, k] : unprofiled_)
      if (r == role && k == kind) return;
    unprofiled_.emplace_back(role, kind);
  }

  aiob_profile profile_;
  std::string source_;
  const compute_model* fallback_;
  mutable std::vector<op_role> missing_;
  mutable std::vector<std::pair<op_role, op_kind>> unprofiled_;
};

/// Where a profile's recorded provenance disagrees with a job (and, if given, a GPU): one message per
/// difference. A version 1 profile records nothing, which is itself reported.
[[nodiscard]] inline std::vector<std::string> profile_mismatches(const aiob_profile& p, const job_spec& job,
                                                                 std::string_view gpu = {}) {
  std::vector<std::string> messages;
  if (p.version() < 2 || p.header.empty()) {
    messages.push_back(
        "the profile records no provenance: the GPU, dtype, shapes and tensor-parallel size it was measured "
        "for "
        "are unknown");
    return messages;
  }
  const model_spec m = resolve(job.model);
  const auto compare = [&](const char* key, const std::string& expected) {
    const auto recorded = p.provenance(key);
    if (!recorded)
      messages.push_back(std::string("the profile does not record ") + key);
    else if (*recorded != expected)
      messages.push_back(std::string(key) + ": profile " + std::string(*recorded) + ", job " + expected);
  };
  if (!gpu.empty()) {
    const auto recorded = p.provenance("gpu");
    if (!recorded)
      messages.emplace_back("the profile does not record its GPU");
    else if (recorded->find(gpu) == std::string_view::npos)
      messages.push_back("gpu: profile " + std::string(*recorded) + ", job " + std::string(gpu));
  }
  compare("dtype", std::string(to_string(job.batch.dtype)));
  compare("tensor_parallel", std::to_string(job.parallel.tensor_parallel));
  compare("hidden_size", std::to_string(m.hidden_size));
  compare("seq_length", std::to_string(job.batch.seq_length));
  compare("micro_batch", std::to_string(job.batch.micro_batch));
  return messages;
}

AICB_END_NAMESPACE
