// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The baseline of scripts/bench-run.sh: N MPI_Allreduce calls of S bytes of 16-bit elements in a bare
// loop, after W untimed ones; prints the loop's wall time in microseconds (the slowest rank's).
//
//   mpirun -np 2 bare_allreduce BYTES ITERATIONS WARMUP
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long bytes = argc > 1 ? std::atol(argv[1]) : 1 << 20,
             iterations = argc > 2 ? std::atol(argv[2]) : 1000, warmup = argc > 3 ? std::atol(argv[3]) : 10;
  std::vector<std::uint16_t> data(static_cast<std::size_t>(bytes / 2), 1);
  for (long i = 0; i < warmup; ++i)
    MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(data.size()), MPI_UINT16_T, MPI_SUM,
                  MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < iterations; ++i)
    MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(data.size()), MPI_UINT16_T, MPI_SUM,
                  MPI_COMM_WORLD);
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count(),
         slowest = 0;
  MPI_Reduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("%.1f\n", slowest);
  MPI_Finalize();
}
