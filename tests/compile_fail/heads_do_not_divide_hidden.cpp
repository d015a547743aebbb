// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A constant model used as a template argument: 48 heads do not divide a hidden size of 4096.
// expect-error: num_attention_heads must divide hidden_size
#include <aicb/model/spec.hpp>

constexpr auto model = aicb::checked_model<aicb::model_spec{
    .hidden_size = 4096, .num_layers = 32, .num_attention_heads = 48, .vocab_size = 32000}>;
