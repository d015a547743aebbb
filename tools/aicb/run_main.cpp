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
int replay_everywhere(const aicb_tool::run_options& flags, const std::string& command_line) {
#if defined(AICB_WITH_MPI)
  aicb_tool::mpi_transport mpi;
  aicb::replay_transport* host = &mpi;
  const std::uint64_t rank = mpi.rank(), world = mpi.world();
  constexpr aicb::run_backend built_in = aicb::run_backend::mpi;
#else
  aicb::replay_transport* host = nullptr;
  const std::uint64_t rank = 0, world = 1;
  constexpr aicb::run_backend built_in = aicb::run_backend::nccl;
#endif
  std::unique_ptr<aicb::replay_transport> owned;
  aicb::replay_transport* transport = host;
  aicb::run_request request;
  aicb::prepared_run prepared;
  if (const auto failed = on_every_rank(static_cast<int>(rank), [&] {
        request = aicb_tool::to_request(flags);
        request.fingerprint = command_line;
        if (request.backend == aicb::run_backend::automatic) request.backend = built_in;
        if (request.backend == aicb::run_backend::mpi && !host)
          throw aicb::config_error("backend", "mpi",
                                   "this aicb-run was built without MPI: use --backend nccl");
        if (request.backend == aicb::run_backend::nccl) {
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
        if (!request.calibration.empty() && request.ranks_per_node == 0)
          request.ranks_per_node =
              aicb::ranks_per_node_of(aicb::node_of_ranks(aicb::host_hashes(*transport)));
        prepared = aicb::prepare_run(request, world, rank);
      }))
    return *failed;
  const bool talk = rank == 0 && !flags.quiet && !flags.json;
  aicb::run_outcome done;
  const auto replay_on_every_rank = [&](const aicb::run_request& what) {
    return on_every_rank(static_cast<int>(rank), [&] {
      done = aicb::run_on(*transport, what, prepared, [talk](std::string_view phase) {
        if (!talk) return;
        std::printf("aicb run: %.*s\n", static_cast<int>(phase.size()), phase.data());
        std::fflush(stdout);  // under mpirun stdout is a pipe: unflushed, nothing shows until the end
      });
    });
  };
  if (const auto failed = replay_on_every_rank(request)) return *failed;
  if (!request.calibration.empty() && flags.job.any_given()) {
    // Then the job, in the same launch (the machines as they were measured), its estimate on the file.
    if (talk && done.calibrated)
      std::fputs(aicb::format_calibration(*done.calibrated, request.calibration).c_str(), stdout);
    const aicb::run_request job = aicb::job_after_calibration(request);
    if (const auto failed =
            on_every_rank(static_cast<int>(rank), [&] { prepared = aicb::prepare_run(job, world, rank); }))
      return *failed;
    if (const auto failed = replay_on_every_rank(job)) return *failed;
    request = job;
  }
  const aicb::replay_result& r = done.result;
  if (rank == 0 && flags.json) std::fputs(aicb::run_json(done, prepared).c_str(), stdout);
  if (talk)
    std::fputs((flags.format == "nccl-tests" ? aicb::format_nccl_tests(done, prepared, request)
                                             : aicb::format_run_table(done, prepared))
                   .c_str(),
               stdout);
  if (talk && done.calibrated)
    std::fputs(aicb::format_calibration(*done.calibrated, request.calibration).c_str(), stdout);
  if (r.options.check && r.wrong > 0) {
    if (rank == 0)
      std::fprintf(stderr, "aicb: run: the check found %llu wrong elements\n",
                   static_cast<unsigned long long>(r.wrong));
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  aicb::remove_temporaries_on_signals();
  CLI::App app{std::string("aicb run: ") + aicb_tool::run_description, "aicb run"};
  aicb_tool::run_options options;
  aicb_tool::add_run_options(app, options);
  std::string command_line;  // the fingerprint every rank must share
  for (int i = 1; i < argc; ++i)
    command_line.append(argv[i]).append(1, '\n');
  if (const auto status = aicb_tool::parse_arguments(app, argc, argv)) return *status;
#if defined(AICB_WITH_MPI)
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "aicb: run: MPI could not start\n");
    return 1;
  }
  const int status = replay_everywhere(options, command_line);
  MPI_Finalize();
  return status;
#else
  return replay_everywhere(options, command_line);
#endif
}
