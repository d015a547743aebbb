// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The GPU backend of `aicb run`: aicb::replay_transport over NCCL. Plain C++ (no CUDA or NCCL
/// types), so that host-compiled code creates it; the implementation is cuda/src/nccl_transport.cu
/// (the static library `aicb::nccl_transport`, built where a CUDA compiler and NCCL are found).
///
/// - One process per GPU: device = local rank (rank modulo the GPUs visible), set before any NCCL
///   call. Rank 0's NCCL id reaches every rank through `share` (MPI_Bcast under mpirun; nothing for
///   a single process). Sub-communicators: ncclCommSplit of the world communicator, color = the
///   group's index, key = the global rank — the same groups and member order as the CPU backend.
/// - Buffers in device memory; 16-bit elements reduced as FP16 (sums of integers up to 2048 are
///   exact, so checks stay exact; FP16 and BF16 move at the same speed).
/// - Collectives run on one stream and are timed by CUDA events around them, each completed
///   before the next (isolated timing, as nccl-tests per call); transfers started but not yet
///   issued are issued together in one NCCL group when one of them is waited for (as
///   torch.distributed.batch_isend_irecv), so that both directions between two stages progress.
/// - Computation: a spin kernel on the same stream that waits on the GPU's global timer.
/// - Host-side agreement (all_gather, max, barrier, abort) goes through `host` (the MPI backend)
///   when given; a single process needs none.

#include <aicb/config.hpp>
#include <aicb/run/replay.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

AICB_BEGIN_NAMESPACE

namespace cuda {

/// Copies `bytes` at `data` from rank 0 to every rank (in place).
using broadcast_function = std::function<void(void* data, std::size_t bytes)>;

/// The NCCL transport of rank `rank` of `world`; `host` for host-side agreement (nullptr when
/// `world` is 1). Throws aicb::error naming the CUDA or NCCL call that failed.
[[nodiscard]] std::unique_ptr<replay_transport> make_nccl_transport(std::uint64_t rank, std::uint64_t world,
                                                                    const broadcast_function& share,
                                                                    replay_transport* host);

/// Whether a GPU is usable; `why` says what is missing when not.
[[nodiscard]] bool nccl_device_available(std::string& why);

}  // namespace cuda

AICB_END_NAMESPACE
