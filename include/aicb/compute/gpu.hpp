// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The GPU catalogue: datasheet peaks (dense, no sparsity) of the accelerators LLM training runs on.
/// Tensor-core BF16/FP16 and FP8 TFLOP/s, FP32 (non-tensor) TFLOP/s, HBM bandwidth, memory, NVLink,
/// and the number of streaming multiprocessors (which decides how a GEMM's tiles fill the GPU).
///
/// Sources: NVIDIA datasheets (V100 SXM2, A100 40/80 GB, H100/H800, H200, H20, B200, L40S; A800 as
/// A100 with 400 GB/s NVLink). GB200: the Blackwell GPU of a Grace Blackwell superchip, run at 1200 W
/// (the B200 of a DGX at 1000 W): 2500 and 5000 TFLOP/s dense BF16 and FP8 and 90 FP32 (NVIDIA's
/// Blackwell architecture brief, as tabulated at glennklockwood.com/garden/processors/B200), and a
/// GB200 NVL72 rack's 13.4 TB of HBM3e at 576 TB/s over its 72 GPUs (NVIDIA's GB200 NVL72
/// specifications): 186 GB and 8 TB/s each. The V100 has no BF16: its FP16 tensor-core rate stands in the
/// BF16 column, which prices FP16 and BF16 alike. Real kernels reach a fraction of these peaks: see
/// aicb/compute/roofline.hpp and docs/compute-model.md.

#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/error.hpp>

#include <array>
#include <cctype>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// Shares of the BF16 peak fused attention sustains, forward and backward (FLOPs counted as
/// compute_op::flops: the causal half; the backward 2.5 times the forward); 0: not measured. With a
/// ramp, a causal kernel of F FLOPs takes (F + ramp) / (peak · share): small kernels — few heads of a
/// short sequence, whose tiles do not fill the GPU — reach a lower share; 0: the roofline's compute
/// ramp. The ramp holds in full from the smallest kernel measured (`ramp_measured_from`, forward
/// FLOPs; the backward's 2.5 times) and shrinks in proportion to the work below it, where nothing was
/// measured; a decoding kernel (queries over a cache, not causal) keeps the roofline's ramp.
struct attention_fractions {
  double forward = 0;
  double backward = 0;
  double forward_ramp_flops = 0;
  double backward_ramp_flops = 0;
  double ramp_measured_from = 0;
};

/// Datasheet figures of one GPU.
struct gpu_spec {
  std::string_view name;       ///< catalogue key, e.g. "H100"
  std::string_view full_name;  ///< e.g. "NVIDIA H100 SXM5 80GB"
  double bf16_tflops = 0;      ///< dense tensor-core BF16/FP16
  double fp8_tflops = 0;       ///< dense tensor-core FP8 (0: not supported)
  double fp32_tflops = 0;      ///< FP32 on CUDA cores
  double memory_gb_per_s = 0;  ///< HBM/GDDR bandwidth, GB/s (10^9 B/s)
  /// Capacity as the datasheet names it, "GB" (80 for an H100). HBM comes in binary sizes, so the
  /// figure counts GiB, not 10^9 bytes: an H100 80GB holds 6.9% more bytes than 80·10^9.
  double memory_gb = 0;
  double nvlink_gb_per_s = 0;  ///< total NVLink bandwidth per GPU (0: PCIe only)
  unsigned sm_count = 0;       ///< streaming multiprocessors
  /// The share of the BF16 peak large GEMMs sustain on this GPU when known apart from the compute
  /// model's default (0: the default, 0.72, measured on an H200). A100s: 0.745 — the default scaled by
  /// the ratio of the A100's to the GH200's maximum achievable matmul efficiency (85.9% and 83.0%,
  /// stas00/ml-engineering, compute/accelerator, MAMF table). B200: 0.49 — its measured mixed-precision
  /// GEMM throughput is 1.56 times an H200's (Jarmusch and Chandrasekaran, "Microbenchmarking
  /// NVIDIA's Blackwell Architecture", arXiv 2512.02189): 0.72 · 989 · 1.56 / 2250. GB200: every
  /// measured fraction of the B200 (GEMMs, FP8 GEMMs, grouped GEMMs, attention), borrowed — the same
  /// die at a higher power limit, and no measurement of a GB200's kernels has been published; its
  /// kernels are assumed to reach the same share of its higher peak. H20: 0.91 — its FP8 GEMMs' measured
  /// fraction below, carried over: its 148 TFLOP/s of tensor cores run at full clock within its power
  /// limit, and every tensor-core kernel measured on it reaches 0.83–0.95 of its peak in either
  /// precision (FP8 GEMMs, BF16 FlashAttention-3: docs/measurements/h20/); its BF16 GEMMs are not
  /// measured on their own.
  double gemm_efficiency = 0;
  /// Whether its grouped expert GEMMs expose each expert's weight traffic (roofline.hpp): measured on
  /// the B200 (Transformer Engine 2.11, docs/measurements/b200/grouped_gemm.csv) and on an H100
  /// (Transformer Engine 2.7's grouped GEMM, TransformerEngine PR 2045) — H100, H800 and H200 share the
  /// die and the kernels; off where unmeasured.
  bool grouped_gemm_exposes_weights = false;
  /// Fused attention on this GPU when measured apart from the compute model's default (0.45 both
  /// ways): for query-key heads up to 128 wide, and for wider ones (MLA's 192), whose kernels run
  /// smaller tiles. H100, H800, H200 (one Hopper die, one clock): cuDNN's fused attention — the
  /// kernels Transformer Engine runs on Hopper — timed on an H200, 15 shapes of 2k–32k tokens and 8–128
  /// heads per pass (docs/measurements/h200/attention_passes.csv), fitted with a ramp: 0.56 forward
  /// (ramp 20 GFLOP) and 0.51 backward (95 GFLOP) for heads of 128, 0.62 (45) and 0.44 (115) for
  /// MLA's. B200: 0.50 / 0.41 and 0.41 / 0.32, no ramp — the medians of Transformer Engine's fused
  /// attention timed on a DGX B200 at 32 to 128 heads of 4096 tokens and at 32k and 128k tokens
  /// (docs/measurements/b200/attention.csv). Fewer heads of a short sequence run slower there than
  /// any fraction says (a floor near 100 µs forward), which the model does not follow.
  attention_fractions attention{};
  attention_fractions wide_head_attention{};
  /// The share of the dense FP8 peak its FP8 GEMMs sustain when known apart from the compute model's
  /// default (0: the default, 0.60, measured on an H200 over the same shapes as its BF16 fraction).
  /// B200: 0.48 — its BF16 fraction above carried over at the FP8-to-BF16 ratio one table measured on
  /// that architecture at one shape: XLA's default matmul table (tensorflow/tensorflow,
  /// `third_party/xla/xla/service/gpu/model/matmul_interpolator_data.h`, `sm_100`) times 4096³ at
  /// 1417 TFLOP/s in BF16 (0.630 of the peak; Transformer Engine on a B200 measured 0.638 at that shape,
  /// docs/measurements/b200/gemm.csv) and 2765–2785 in FP8 (0.617): 0.49 · 0.617 / 0.630. The H200's
  /// 0.60 would run the B200's FP8 GEMMs 2.45 times as fast as its BF16 ones, beyond the datasheets' 2.
  /// H20: 0.91 — the median of DeepGEMM's block-scaled FP8 GEMMs timed on an H20 at 4096 rows and more
  /// (148 shapes of 34 weight matrices, docs/measurements/h20/gemm_fp8.csv).
  double fp8_gemm_efficiency = 0;
  /// Gated DeltaNet's kernels when measured on this GPU (0: the compute model's attention fraction and
  /// memory bandwidth): the chunked scan of a prompt (its five kernels, priced together as one
  /// operation) as a share of the BF16 peak, and the recurrent update of decoding requests (each
  /// state read and written) as a share of the memory bandwidth. H20: 0.22 and 0.56 — SGLang's kernels
  /// timed on one (docs/measurements/h20/gated_deltanet.csv: Qwen3-Next's 32 value heads, a prompt of
  /// 4096 tokens in 527 µs, which 0.22 gives with the model's ramp and launch; 64 to 1024 requests
  /// updating FP32 states at 0.55–0.57 of 4.0 TB/s).
  double gated_deltanet_fraction = 0;
  double gated_deltanet_memory = 0;
  /// Attention over a per-head KV cache (decoding MHA or GQA: each KV group's query heads against its
  /// cached keys and values, not causal; MLA's absorbed decode is a kernel of its own and keeps the
  /// attention fraction) when measured on this GPU (0: the forward attention fraction and the memory
  /// bandwidth): as a share of the BF16 peak where many query heads share each cached head (the
  /// kernel compute-bound), and of the memory bandwidth where few do. H20: 0.45 and 0.72 — FlashInfer's
  /// decode kernels timed on one (docs/measurements/h20/attention_decode.csv: 4 to 128 query heads
  /// a cached head, batches of 1 to 512 over 1k–128k cached tokens; the medians over the BF16-cache
  /// kernels that read 256k cached tokens or more: those with 32 or more query heads a cached head for
  /// the first, the rest for the second).
  double decode_attention_fraction = 0;
  double decode_attention_memory = 0;
  /// The same few-headed decode kernels over an FP8 cache when measured (0: decode_attention_memory):
  /// as a share of the memory bandwidth, counting the cache's one byte an element. They dequantise what
  /// they read, so halving the bytes does not halve the time. H20: 0.50 — FlashInfer's FP8-cache decode
  /// kernels of 32 query heads over 8 cached heads of 128 (docs/measurements/h20/attention_decode.csv,
  /// the median over those reading 256k cached tokens or more), which take 0.70 of their BF16-cache
  /// counterparts' time.
  double decode_attention_fp8_memory = 0;
  /// Whether its tensor cores take FP8 operands with a scale per 32 elements (MXFP8, the OCP
  /// microscaling format): Blackwell's do, Hopper's do not (fp8_recipe mxfp8 needs it).
  bool microscaled_fp8 = false;
  /// Mamba-2's chunked SSD scan (its chunk-state, chunk-scan and score kernels, priced together as one
  /// operation) as a share of the BF16 peak when measured on this GPU's die (0: the compute model's
  /// attention fraction). H100, H800, H200: 0.10 — mamba-ssm's Triton chunk-scan kernel (its release
  /// 2.2.6, Triton 3.5) ran at 90–110 TFLOP/s on an H800 over sequences of 1k to 32k tokens (8 of them,
  /// 80 heads of 64, one group of state 128, chunks of 256: tile-ai/tilelang's
  /// `benchmark/mamba2`, the chart beside its README; 106 at 4k, 91 at 8k and beyond, a median of
  /// about 99 of the 989 peak). The scan's other kernels are taken to run at the chunk scan's rate,
  /// its backward at the forward's; neither is measured. Elsewhere unmeasured: a Triton kernel's share
  /// of a peak does not carry between architectures.
  double mamba_ssd_fraction = 0;
  /// The device memory the driver reports, MiB (0: not recorded; memory_bytes() then takes the
  /// datasheet's capacity as GiB). From `nvidia-smi` on the device: H100 and H800 81559, H200 143771
  /// (docs/measurements/h200/nvidia-smi.csv), B200 183359, GB200 189471 — 0.4–0.5% below the binary
  /// capacity (the driver's reservation), 6.9% above the datasheet figure read as 10^9 bytes.
  double driver_memory_mib = 0;

  /// Peak FLOP/s for `t` (FP16 runs at the BF16 rate; FP8 falls back to BF16 where unsupported).
  [[nodiscard]] constexpr double peak_flops(dtype t) const noexcept {
    switch (t) {
      case dtype::bf16:
      case dtype::fp16:
        return bf16_tflops * 1e12;
      case dtype::fp8:
        return (fp8_tflops > 0 ? fp8_tflops : bf16_tflops) * 1e12;
      case dtype::fp32:
        return fp32_tflops * 1e12;
    }
    return 0;
  }
  [[nodiscard]] constexpr double memory_bytes_per_s() const noexcept { return memory_gb_per_s * 1e9; }
  /// The memory a framework can allocate from: the total the driver reports (`nvidia-smi`,
  /// `torch.cuda.mem_get_info`), which engines' memory fractions multiply — `driver_memory_mib`
  /// where known, else the datasheet's binary capacity.
  [[nodiscard]] constexpr double memory_bytes() const noexcept {
    return driver_memory_mib > 0 ? driver_memory_mib * 1048576.0 : memory_gb * 1073741824.0;
  }
};

/// The catalogue.
// One GPU per line.
/// Hopper's fused attention as measured on an H200 (gpu_spec::attention).
inline constexpr attention_fractions hopper_attention{0.56, 0.51, 20e9, 95e9, 8.59e9};
inline constexpr attention_fractions hopper_wide_head_attention{0.62, 0.44, 45e9, 115e9, 85.9e9};
/// Hopper's Mamba-2 scan, as mamba-ssm's chunk-scan kernel ran on an H800 (gpu_spec::mamba_ssd_fraction).
inline constexpr double hopper_mamba_ssd_fraction = 0.10;

/// The H20's FlashAttention-3 forward as measured on one (docs/measurements/h20/attention_prefill.csv:
/// causal, BF16, one sequence of 4k–32k tokens, 16–64 query heads of 128 and 256): a median 0.89 of the
/// BF16 peak, heads of 128 and of 256 alike; no ramp. Its backward is not measured: Hopper's
/// backward-to-forward ratio measured on the H200 (0.51 / 0.56) carried over, 0.81.
inline constexpr attention_fractions h20_attention{0.89, 0.81};

// clang-format off
inline constexpr std::array<gpu_spec, 11> gpu_catalogue{{
    {"V100", "NVIDIA V100 SXM2 32GB", 125, 0, 15.7, 900, 32, 300, 80},
    {"A100-40GB", "NVIDIA A100 SXM4 40GB", 312, 0, 19.5, 1555, 40, 600, 108, 0.745},
    {"A100", "NVIDIA A100 SXM4 80GB", 312, 0, 19.5, 2039, 80, 600, 108, 0.745},
    {"A800", "NVIDIA A800 SXM4 80GB", 312, 0, 19.5, 2039, 80, 400, 108, 0.745},
    {"H100", "NVIDIA H100 SXM5 80GB", 989, 1979, 67, 3350, 80, 900, 132, 0, true, hopper_attention, hopper_wide_head_attention, 0, 0, 0, 0, 0, 0, false, hopper_mamba_ssd_fraction, 81559},
    {"H800", "NVIDIA H800 SXM5 80GB", 989, 1979, 67, 3350, 80, 400, 132, 0, true, hopper_attention, hopper_wide_head_attention, 0, 0, 0, 0, 0, 0, false, hopper_mamba_ssd_fraction, 81559},
    {"H200", "NVIDIA H200 SXM 141GB", 989, 1979, 67, 4800, 141, 900, 132, 0, true, hopper_attention, hopper_wide_head_attention, 0, 0, 0, 0, 0, 0, false, hopper_mamba_ssd_fraction, 143771},
    {"H20", "NVIDIA H20 96GB", 148, 296, 44, 4000, 96, 900, 78, 0.91, false, h20_attention, h20_attention, 0.91, 0.22, 0.56, 0.45, 0.72, 0.50},
    {"B200", "NVIDIA B200 180GB", 2250, 4500, 80, 8000, 180, 1800, 148, 0.49, true, {0.50, 0.41}, {0.41, 0.32}, 0.48, 0, 0, 0, 0, 0, true, 0, 183359},
    {"GB200", "NVIDIA GB200 (Blackwell GPU, 1200 W) 186GB", 2500, 5000, 90, 8000, 186, 1800, 148, 0.49, true, {0.50, 0.41}, {0.41, 0.32}, 0.48, 0, 0, 0, 0, 0, true, 0, 189471},
    {"L40S", "NVIDIA L40S 48GB", 362, 733, 91.6, 864, 48, 0, 142},
}};
// clang-format on

/// The catalogue entry for `name`: its key ("H100", any case) or a device name containing it as a
/// word ("NVIDIA H100 80GB HBM3" → H100, "NVIDIA A100-SXM4-80GB" → A100; the longest key wins, so
/// "A100-40GB" is not read as "A100"); nullptr if none. A key inside a longer product name is not
/// that product: "GH200" is not an H200, nor "GB200" a B200.
[[nodiscard]] inline const gpu_spec* find_gpu(std::string_view name) {
  std::string upper(name);
  for (char& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  const auto names_word = [&](std::string_view key) {
    for (std::size_t at = upper.find(key); at != std::string::npos; at = upper.find(key, at + 1)) {
      const std::size_t end = at + key.size();
      if ((at == 0 || !alnum(upper[at - 1])) && (end == upper.size() || !alnum(upper[end]))) return true;
    }
    return false;
  };
  const gpu_spec* best = nullptr;
  for (const gpu_spec& g : gpu_catalogue)
    if (names_word(g.name) && (!best || g.name.size() > best->name.size())) best = &g;
  return best;
}

/// The catalogue entry for `name` (as find_gpu); config_error naming the field `gpu` and listing the
/// catalogue when there is none.
[[nodiscard]] inline const gpu_spec& require_gpu(std::string_view name) {
  if (const gpu_spec* g = find_gpu(name)) return *g;
  std::string known;
  for (const gpu_spec& g : gpu_catalogue)
    known.append(known.empty() ? "" : ", ").append(g.name);
  AICB_THROW(config_error("gpu", std::string(name), "expected a GPU of the catalogue: " + known));
}

AICB_END_NAMESPACE
