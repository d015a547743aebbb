// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The NCCL backend of `aicb run` (interface and design: aicb/cuda/nccl_transport.hpp).
#include <aicb/cuda/nccl_transport.hpp>
#include <aicb/error.hpp>

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <span>
#include <string>
#include <vector>

AICB_BEGIN_NAMESPACE

namespace cuda {
namespace {

void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    AICB_THROW(error(std::string(what) + " failed: " + cudaGetErrorName(status) + " (" +
                     cudaGetErrorString(status) + ")"));
}
void nccl_check(ncclResult_t status, const char* what) {
  if (status != ncclSuccess) AICB_THROW(error(std::string(what) + " failed: " + ncclGetErrorString(status)));
}

// Spins until `ns` nanoseconds of the GPU's global timer have passed: computation that keeps the
// stream busy for the modelled time.
__global__ void spin(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

class nccl_transport final : public replay_transport {
 public:
  nccl_transport(std::uint64_t rank, std::uint64_t world, const broadcast_function& share,
                 replay_transport* host)
      : rank_(rank), world_(world), host_(host) {
    int devices = 0;
    cuda_check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    if (devices == 0) AICB_THROW(error("no CUDA device"));
    cuda_check(cudaSetDevice(static_cast<int>(rank % static_cast<std::uint64_t>(devices))), "cudaSetDevice");
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
    ncclUniqueId id{};
    if (rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    if (share) share(&id, sizeof id);
    nccl_check(ncclCommInitRank(&world_comm_, static_cast<int>(world), id, static_cast<int>(rank)),
               "ncclCommInitRank");
  }
  ~nccl_transport() override {
    cudaStreamSynchronize(stream_);
    for (auto& [kind, comm] : comms_)
      if (comm) ncclCommDestroy(comm);
    if (world_comm_) ncclCommDestroy(world_comm_);
    for (void* b : buffers_)
      cudaFree(b);
    if (comm_stream_) {
      cudaStreamSynchronize(comm_stream_);
      cudaStreamDestroy(comm_stream_);
    }
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream_);
  }

  [[nodiscard]] std::uint64_t rank() const override { return rank_; }
  [[nodiscard]] std::uint64_t world() const override { return world_; }
  [[nodiscard]] std::uint64_t exact_sum_limit() const override { return 2048; }
  [[nodiscard]] std::string host_name() const override { return host_ ? host_->host_name() : "localhost"; }
  [[nodiscard]] std::string library() const override {
    int version = 0;
    ncclGetVersion(&version);  // 22803 for 2.28.3
    return "NCCL " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
           std::to_string(version % 100) + (host_ ? " over " + host_->library() : std::string());
  }

  void create_groups(const process_grid& grid, const std::vector<group_kind>& kinds) override {
    for (const group_kind kind : kinds) {
      if (const auto old = comms_.find(kind); old != comms_.end() && old->second) {
        cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
        ncclCommDestroy(old->second);  // a second replay in one launch (a calibration, then its job)
        old->second = nullptr;
      }
      const rank_group g = grid.group(kind, rank_);
      ncclComm_t comm = nullptr;
      nccl_check(
          ncclCommSplit(world_comm_, g.contains(rank_) ? static_cast<int>(g.id().index) : NCCL_SPLIT_NOCOLOR,
                        static_cast<int>(rank_), &comm, nullptr),
          "ncclCommSplit");
      comms_[kind] = comm;
    }
  }

  [[nodiscard]] buffer allocate(std::uint64_t elements) override {
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, elements * sizeof(__half)), "cudaMalloc");
    cuda_check(cudaMemset(p, 0, elements * sizeof(__half)), "cudaMemset");
    buffers_.push_back(p);
    sizes_.push_back(elements);
    return buffers_.size() - 1;
  }
  void write(buffer b, std::span<const replay_element> host) override {
    std::vector<__half> values(std::min<std::size_t>(host.size(), sizes_[b]));
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = __float2half(static_cast<float>(host[i]));
    cuda_check(cudaMemcpy(buffers_[b], values.data(), values.size() * sizeof(__half), cudaMemcpyHostToDevice),
               "cudaMemcpy");
  }
  void read(buffer b, std::span<replay_element> host) override {
    std::vector<__half> values(std::min<std::size_t>(host.size(), sizes_[b]));
    cuda_check(cudaMemcpy(values.data(), buffers_[b], values.size() * sizeof(__half), cudaMemcpyDeviceToHost),
               "cudaMemcpy");
    for (std::size_t i = 0; i < values.size(); ++i)
      host[i] = static_cast<replay_element>(__half2float(values[i]));
  }

  // Issues collective `kind` on `stream` (the replay's conventions: see replay_transport::run_collective).
  void launch(collective kind, group_id group, std::uint64_t n, buffer data, buffer out,
              std::uint64_t elements, cudaStream_t stream) {
    ncclComm_t comm = comms_.at(group.kind);
    __half* d = static_cast<__half*>(buffers_[data]);
    __half* o = static_cast<__half*>(buffers_[out]);
    const std::size_t count = elements, shard = n ? elements / n : elements;
    int position = 0;
    nccl_check(ncclCommUserRank(comm, &position), "ncclCommUserRank");
    switch (kind) {
      case collective::all_reduce:
        nccl_check(ncclAllReduce(d, d, count, ncclFloat16, ncclSum, comm, stream), "ncclAllReduce");
        break;
      case collective::all_gather:
        nccl_check(ncclAllGather(d + position * shard, d, shard, ncclFloat16, comm, stream), "ncclAllGather");
        break;
      case collective::reduce_scatter:
        nccl_check(ncclReduceScatter(d, o, shard, ncclFloat16, ncclSum, comm, stream), "ncclReduceScatter");
        break;
      case collective::all_to_all:
        nccl_check(ncclAlltoAll(d, o, shard, ncclFloat16, comm, stream), "ncclAlltoAll");
        break;
      case collective::broadcast:
        nccl_check(ncclBroadcast(d, d, count, ncclFloat16, 0, comm, stream), "ncclBroadcast");
        break;
      case collective::reduce:
        nccl_check(ncclReduce(d, d, count, ncclFloat16, ncclSum, 0, comm, stream), "ncclReduce");
        break;
      default:
        AICB_THROW(
            config_error("collective", std::string(to_string(kind)), "not a collective the replay runs"));
    }
  }

  double run_collective(collective kind, group_id group, std::uint64_t n, buffer data, buffer out,
                        std::uint64_t elements) override {
    cuda_check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    launch(kind, group, n, data, out, elements, stream_);
    return elapsed();
  }

  // The collective on the communication stream, after everything the computation's stream has been
  // given so far; finish() waits for it and makes the computation's stream wait too.
  [[nodiscard]] request start_collective(collective kind, group_id group, std::uint64_t n, buffer data,
                                         buffer out, std::uint64_t elements) override {
    if (!comm_stream_)
      cuda_check(cudaStreamCreateWithFlags(&comm_stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    cudaEvent_t ready{}, done{};
    cuda_check(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), "cudaEventCreate");
    cuda_check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate");
    cuda_check(cudaEventRecord(ready, stream_), "cudaEventRecord");
    cuda_check(cudaStreamWaitEvent(comm_stream_, ready, 0), "cudaStreamWaitEvent");
    launch(kind, group, n, data, out, elements, comm_stream_);
    cuda_check(cudaEventRecord(done, comm_stream_), "cudaEventRecord");
    cudaEventDestroy(ready);
    started_.push_back(done);
    return started_bit | (started_.size() - 1);
  }

  double run_all_to_all_v(group_id group, std::uint64_t n, buffer data, buffer out,
                          std::span<const std::uint64_t> send_counts,
                          std::span<const std::uint64_t> receive_counts) override {
    ncclComm_t comm = comms_.at(group.kind);
    __half* d = static_cast<__half*>(buffers_[data]);
    __half* o = static_cast<__half*>(buffers_[out]);
    cuda_check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    for (std::uint64_t q = 0, s = 0, r = 0; q < n; s += send_counts[q], r += receive_counts[q], ++q) {
      const int peer = static_cast<int>(q);  // the group communicator's ranks are its members in order
      nccl_check(ncclSend(d + s, send_counts[q], ncclFloat16, peer, comm, stream_), "ncclSend");
      nccl_check(ncclRecv(o + r, receive_counts[q], ncclFloat16, peer, comm, stream_), "ncclRecv");
    }
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    return elapsed();
  }

  [[nodiscard]] request start_send(std::uint64_t peer, std::uint64_t tag, buffer b,
                                   std::uint64_t elements) override {
    (void)tag;  // NCCL pairs transfers by order between two ranks
    transfers_.push_back({true, peer, b, elements, false});
    return transfers_.size() - 1;
  }
  [[nodiscard]] request start_receive(std::uint64_t peer, std::uint64_t tag, buffer b,
                                      std::uint64_t elements) override {
    (void)tag;
    transfers_.push_back({false, peer, b, elements, false});
    return transfers_.size() - 1;
  }
  void finish(request r) override {
    if (r & started_bit) {  // a started collective
      cudaEvent_t& done = started_[r & ~started_bit];
      cuda_check(cudaEventSynchronize(done), "cudaEventSynchronize");
      cuda_check(cudaStreamWaitEvent(stream_, done, 0), "cudaStreamWaitEvent");
      cudaEventDestroy(done);
      done = nullptr;
      if (++started_finished_ == started_.size()) {
        started_.clear();
        started_finished_ = 0;
      }
      return;
    }
    if (transfers_[r].issued) return;
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    for (transfer& t : transfers_) {
      if (t.issued) continue;
      const int peer = static_cast<int>(t.peer);
      if (t.send)
        nccl_check(ncclSend(buffers_[t.b], t.elements, ncclFloat16, peer, world_comm_, stream_), "ncclSend");
      else
        nccl_check(ncclRecv(buffers_[t.b], t.elements, ncclFloat16, peer, world_comm_, stream_), "ncclRecv");
      t.issued = true;
    }
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    bool all = true;
    for (const transfer& t : transfers_)
      all = all && t.issued;
    if (all) transfers_.clear();
  }

  double compute(std::chrono::nanoseconds duration) override {
    cuda_check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    spin<<<1, 1, 0, stream_>>>(static_cast<unsigned long long>(duration.count()));
    cuda_check(cudaGetLastError(), "the spin kernel's launch");
    return elapsed();
  }
  void synchronize() override { cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }
  void barrier() override {
    synchronize();
    if (host_) host_->barrier();
  }
  [[nodiscard]] std::vector<double> all_gather(double value) override {
    return host_ ? host_->all_gather(value) : std::vector<double>{value};
  }
  void max_over_ranks(std::span<double> values) override {
    if (host_) host_->max_over_ranks(values);
  }
  [[nodiscard]] std::vector<std::vector<double>> gather_to_first(std::span<const double> values) override {
    if (host_) return host_->gather_to_first(values);
    return {std::vector<double>(values.begin(), values.end())};
  }
  [[noreturn]] void abort(const std::string& message) override {
    if (host_) host_->abort(message);
    std::fprintf(stderr, "aicb: run: %s; ending the job\n", message.c_str());
    std::_Exit(3);
  }

 private:
  struct transfer {
    bool send;
    std::uint64_t peer;
    buffer b;
    std::uint64_t elements;
    bool issued;
  };
  // Seconds between start_ and now on the stream, once the stream has finished.
  double elapsed() {
    cuda_check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e-3;
  }

  std::uint64_t rank_ = 0, world_ = 1;
  replay_transport* host_ = nullptr;
  cudaStream_t stream_{};
  cudaEvent_t start_{}, stop_{};
  ncclComm_t world_comm_ = nullptr;
  std::map<group_kind, ncclComm_t> comms_;
  std::vector<void*> buffers_;
  std::vector<std::uint64_t> sizes_;
  std::vector<transfer> transfers_;
  // Started collectives: their completion events, numbered from started_bit up (transfers below it).
  static constexpr request started_bit = request{1} << 62;
  cudaStream_t comm_stream_{};
  std::vector<cudaEvent_t> started_;
  std::size_t started_finished_ = 0;
};

}  // namespace

std::unique_ptr<replay_transport> make_nccl_transport(std::uint64_t rank, std::uint64_t world,
                                                      const broadcast_function& share,
                                                      replay_transport* host) {
  return std::make_unique<nccl_transport>(rank, world, share, host);
}

bool nccl_device_available(std::string& why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    why = status != cudaSuccess ? std::string("no usable CUDA device: ") + cudaGetErrorName(status)
                                : std::string("no CUDA device");
    cudaGetLastError();
    return false;
  }
  return true;
}

}  // namespace cuda

AICB_END_NAMESPACE
