// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// aicb-run: the program behind `aicb run` (run_command.hpp), separate so that only it loads MPI and
// NCCL. Built with MPI (AICB_WITH_MPI) it runs one process per rank under mpirun, on the mpi
// backend or, with NCCL (AICB_WITH_NCCL), on GPUs; built with NCCL alone it runs one process, one
// GPU. Exit status: 0 success, 1 a failed check or a runtime failure, 2 usage or configuration
// error. Under MPI the ranks agree on failures before any traffic (one message, from rank 0, naming
// the rank that failed); a rank that fails or times out mid-run ends the whole job.
#include "exit_status.hpp"
#include "run_command.hpp"

#include <aicb/io/atomic_file.hpp>

#if defined(AICB_WITH_MPI)
#  include "mpi_transport.hpp"

#  include <mpi.h>
#endif
#if defined(AICB_WITH_NCCL)
#  include <aicb/cuda/nccl_transport.hpp>
#endif

#include <CLI/CLI.hpp>

#include <exception>
#include <memory>
#include <optional>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
// Under AddressSanitizer (the suite's sanitizer build): MPI's libraries keep allocations until the
// process ends, which LeakSanitizer would report as this program's leaks; the CUDA driver maps memory
// where ASan's shadow gap would be protected.
extern "C" const char* __asan_default_options() { return "detect_leaks=0:protect_shadow_gap=0"; }
#endif

namespace {

// Runs `step`, turning its exceptions into (status, message).
template <class Step>
std::pair<int, std::string> attempt(Step&& step) {
  try {
    step();
    return {0, {}};
  } catch (...) {
    return aicb_tool::handled_failure();
  }
}

// Runs `step` on every rank; when it fails anywhere, every rank returns the worst status and rank 0
// prints the first failing rank's message. nullopt when it succeeded everywhere.
template <class Step>
std::optional<int> on_every_rank(int rank, Step&& step) {
  auto [status, message] = attempt(step);
#if defined(AICB_WITH_MPI)
  int worst = 0, size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (worst == 0) return std::nullopt;
  int mine = status != 0 ? rank : size, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
  if (rank == 0)
    std::fprintf(stderr, "aicb: %s%s\n", message.c_str(),
                 first == 0 ? "" : (" (rank " + std::to_string(first) + ")").c_str());
  return worst;
#else
  (void)rank;
  if (status == 0) return std::nullopt;
  std::fprintf(stderr, "aicb: %s\n", message.c_str());
  return status;
#endif
}

// The transports of this process and the run.
int replay_everywhere(aicb_tool::run_options& options) {
#if defined(AICB_WITH_MPI)
  aicb_tool::mpi_transport mpi;
  aicb::replay_transport* host = &mpi;
  const std::uint64_t rank = mpi.rank(), world = mpi.world();
  if (options.backend.empty()) options.backend = "mpi";
#else
  aicb::replay_transport* host = nullptr;
  const std::uint64_t rank = 0, world = 1;
  if (options.backend.empty()) options.backend = "nccl";
#endif
  std::unique_ptr<aicb::replay_transport> owned;
  aicb::replay_transport* transport = host;
  aicb_tool::prepared_run prepared;
  if (const auto failed = on_every_rank(static_cast<int>(rank), [&] {
        if (options.backend == "mpi" && !host)
          throw aicb::config_error("backend", "mpi",
                                   "this aicb-run was built without MPI: use --backend nccl");
        if (options.backend == "nccl") {
#if defined(AICB_WITH_NCCL)
          std::string why;
          if (!aicb::cuda::nccl_device_available(why))
            throw aicb::config_error("backend", "nccl", why + "; the nccl backend needs a GPU per rank");
          aicb::cuda::broadcast_function share;
#  if defined(AICB_WITH_MPI)
          share = [](void* data, std::size_t bytes) {
            MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD);
          };
#  endif
          owned = aicb::cuda::make_nccl_transport(rank, world, share, host);
          transport = owned.get();
#else
          throw aicb::config_error("backend", "nccl",
                                   "this aicb-run was built without NCCL (it is built where nvcc and NCCL are "
                                   "installed)");
#endif
        }
        prepared = aicb_tool::prepare_run(options, world, rank);
      }))
    return *failed;
  int status = 0;
  if (const auto failed = on_every_rank(
          static_cast<int>(rank), [&] { status = aicb_tool::run_replay(*transport, options, prepared); }))
    return *failed;
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  aicb::remove_temporaries_on_signals();
  CLI::App app{std::string("aicb run: ") + aicb_tool::run_description, "aicb run"};
  aicb_tool::run_options options;
  aicb_tool::add_run_options(app, options);
  for (int i = 1; i < argc; ++i)
    options.command_line.emplace_back(argv[i]);
  if (const auto status = aicb_tool::parse_arguments(app, argc, argv)) return *status;
#if defined(AICB_WITH_MPI)
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "aicb: run: MPI could not start\n");
    return 1;
  }
  const int status = replay_everywhere(options);
  MPI_Finalize();
  return status;
#else
  return replay_everywhere(options);
#endif
}
