// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A tiny outside program: it includes the umbrella the way a user would and uses the vocabulary.
#include <aicb/aicb.hpp>

#include <cstdio>

int main() {
  using namespace aicb::literals;
  const aicb::record r{
      "grad_norm", {}, {}, {1ns, {aicb::collective::all_gather, aicb::comm_group::dp, 2_GiB}}, 100ns};
  if (r.weight_grad.comm.size != 2_GiB) return 1;
  std::printf("consumer ok: aicb %s\n", AICB_VERSION_STRING);
  return 0;
}
