#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Measures the efficiency curves behind aicb's physics compute model on this machine's GPU, through
PyTorch (cuBLAS, cuDNN/FlashAttention and PyTorch's own element-wise kernels):

  gemm        achieved TFLOP/s of BF16 (and FP8 where supported) GEMMs against their FLOPs and shape
  grouped     per-expert GEMMs of a mixture of experts, run as a loop (the rows each expert gets)
  memory      achieved GB/s of streaming kernels (copy, add, GELU, softmax, layer norm, dropout)
              against the bytes they move (read + written)
  attention   fused (scaled_dot_product_attention) against unfused (QK^T, mask, softmax, dropout, AV)
  attention_passes
              fused causal attention's forward and backward timed apart, per PyTorch back end
              (cuDNN's fused attention, the kernels Transformer Engine runs on Hopper, and
              FlashAttention-2), at the heads and sequences of TP-sharded training layers and at
              MLA's 192-wide query-key heads
  optimizer   one fused Adam step: time and bytes per parameter
  softmax     a fused scale-mask-softmax kernel (written in Triton, one row per program, the row in
              registers: the kind of kernel Megatron's unfused attention runs) against PyTorch's
              softmax, on attention score matrices

Each time is the median of CUDA-event-timed calls after warm-up calls. Writes CSV files and a
Markdown summary into the folder given (default: .).

  efficiency_curves.py OUT_DIR [SECTION...]     (default: every section)
"""
import csv
import os
import statistics
import sys

import torch

DEV = "cuda"


def median_ms(fn, warmup=5, iterations=20):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iterations):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def write(out, name, header, rows):
    with open(os.path.join(out, name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def gemm_rows():
    rows = []
    shapes = [(s, s, s) for s in (256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384)]
    # LLM shapes: tokens of one micro-batch × TP shards of hidden sizes 2048..12288.
    for m in (1024, 2048, 4096, 8192, 16384):
        for h in (2048, 4096, 8192, 12288):
            shapes += [(m, 3 * h // 8, h), (m, h, h // 8), (m, 4 * h // 8, h), (m, h, 4 * h // 8)]
    seen = set()
    for m, n, k in shapes:
        if (m, n, k) in seen:
            continue
        seen.add((m, n, k))
        a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
        flops = 2.0 * m * n * k
        ms = median_ms(lambda: torch.matmul(a, b))
        rows.append(["bf16", m, n, k, flops, ms * 1e3, flops / ms / 1e9])
        try:
            a8 = a.to(torch.float8_e4m3fn)
            b8 = torch.randn(n, k, device=DEV, dtype=torch.bfloat16).to(torch.float8_e4m3fn)
            one = torch.ones((), device=DEV, dtype=torch.float32)
            fn = lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            fn()
            ms8 = median_ms(fn)
            rows.append(["fp8", m, n, k, flops, ms8 * 1e3, flops / ms8 / 1e9])
        except Exception as e:  # no FP8 GEMM on this GPU or PyTorch
            print("fp8 GEMM skipped:", e, file=sys.stderr)
        del a, b
    return rows


def grouped_rows():
    # DeepSeek-V3-like experts (hidden 7168, expert FFN 2048) and Mixtral-like (4096, 14336 / TP 2):
    # each expert's up (gate+up fused) and down GEMM for the rows it receives.
    rows = []
    for hidden, ffn in ((7168, 2048), (4096, 7168)):
        for tokens in (128, 256, 512, 1024, 2048, 4096):
            experts = 8
            xs = [torch.randn(tokens, hidden, device=DEV, dtype=torch.bfloat16) for _ in range(experts)]
            w1 = [torch.randn(hidden, 2 * ffn, device=DEV, dtype=torch.bfloat16) for _ in range(experts)]
            w2 = [torch.randn(ffn, hidden, device=DEV, dtype=torch.bfloat16) for _ in range(experts)]
            hs = [torch.randn(tokens, ffn, device=DEV, dtype=torch.bfloat16) for _ in range(experts)]

            def up():
                for x, w in zip(xs, w1):
                    torch.matmul(x, w)

            def down():
                for x, w in zip(hs, w2):
                    torch.matmul(x, w)

            for name, fn, flops in (("up", up, 2.0 * tokens * hidden * 2 * ffn * experts),
                                    ("down", down, 2.0 * tokens * ffn * hidden * experts)):
                ms = median_ms(fn)
                rows.append([name, hidden, ffn, tokens, experts, flops, ms * 1e3, flops / ms / 1e9])
            del xs, w1, w2, hs
    return rows


def memory_rows():
    rows = []
    for mib in (1, 4, 16, 64, 256, 1024, 4096):
        n = mib * 2**20 // 2  # bf16 elements in `mib` MiB
        x = torch.randn(n, device=DEV, dtype=torch.bfloat16)
        y = torch.randn(n, device=DEV, dtype=torch.bfloat16)
        z = torch.empty_like(x)
        rows_2d = x.view(-1, 4096)
        ln = torch.nn.LayerNorm(4096, device=DEV, dtype=torch.bfloat16)
        b = 2 * n
        kernels = (
            ("copy", lambda: z.copy_(x), 2 * b),
            ("add", lambda: torch.add(x, y, out=z), 3 * b),
            ("gelu", lambda: torch.nn.functional.gelu(x), 2 * b),
            ("softmax", lambda: torch.softmax(rows_2d, dim=-1), 2 * b),
            ("layernorm", lambda: ln(rows_2d), 2 * b),
            ("dropout", lambda: torch.nn.functional.dropout(x, 0.1, training=True), 2 * b + n // 8),
        )
        for name, fn, moved in kernels:
            with torch.no_grad():
                ms = median_ms(fn)
            rows.append([name, b, moved, ms * 1e3, moved / ms / 1e6])
        del x, y, z, rows_2d
    return rows


def attention_rows():
    rows = []
    f = torch.nn.functional
    for seq, heads, d, batch in ((2048, 8, 128, 1), (2048, 16, 128, 4), (4096, 8, 128, 1), (8192, 8, 128, 1),
                                 (2048, 12, 128, 1), (2048, 24, 96, 1)):
        q = torch.randn(batch, heads, seq, d, device=DEV, dtype=torch.bfloat16)
        k = torch.randn_like(q)
        v = torch.randn_like(q)
        causal_flops = 4.0 * batch * heads * seq * seq * d / 2
        full_flops = 2 * causal_flops
        mask = torch.ones(seq, seq, device=DEV, dtype=torch.bool).triu(1)

        def unfused_parts():
            s = torch.matmul(q, k.transpose(-1, -2))
            s = s.mul_(d**-0.5).masked_fill_(mask, float("-inf"))
            p = torch.softmax(s, dim=-1)
            p = f.dropout(p, 0.1, training=True)
            return torch.matmul(p, v)

        with torch.no_grad():
            ms_flash = median_ms(lambda: f.scaled_dot_product_attention(q, k, v, is_causal=True))
            ms_unfused = median_ms(unfused_parts)
            ms_qk = median_ms(lambda: torch.matmul(q, k.transpose(-1, -2)))
            scores = torch.matmul(q, k.transpose(-1, -2))
            ms_softmax = median_ms(lambda: torch.softmax(scores, dim=-1))
        score_bytes = scores.numel() * 2
        rows.append([seq, heads, d, batch, causal_flops, full_flops, score_bytes, ms_flash * 1e3, ms_unfused * 1e3,
                     ms_qk * 1e3, ms_softmax * 1e3, causal_flops / ms_flash / 1e9, full_flops / ms_unfused / 1e9])
        del q, k, v, scores, mask
    return rows


def attention_pass_rows():
    """Forward and backward of causal fused attention, each timed alone: the backward by replaying
    autograd over one retained forward graph. FLOPs as the compute model counts them: the causal
    half of 2·s²·(d_qk + d_v) per head forward, 2.5 times that backward."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    f = torch.nn.functional
    backends = (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION))
    rows = []
    for seq, heads, d_qk, d_v, batch in ((2048, 8, 128, 128, 1), (4096, 8, 128, 128, 1), (4096, 16, 128, 128, 1),
                                         (4096, 32, 128, 128, 1), (4096, 64, 128, 128, 1), (8192, 8, 128, 128, 1),
                                         (8192, 16, 128, 128, 1), (8192, 32, 128, 128, 1), (16384, 8, 128, 128, 1),
                                         (32768, 8, 128, 128, 1), (4096, 32, 64, 64, 1), (4096, 16, 192, 128, 1),
                                         (4096, 32, 192, 128, 1), (4096, 128, 192, 128, 1), (8192, 16, 192, 128, 1)):
        forward_flops = 2.0 * batch * heads * seq * seq * (d_qk + d_v) / 2
        backward_flops = 2.5 * forward_flops
        q = torch.randn(batch, heads, seq, d_qk, device=DEV, dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(batch, heads, seq, d_qk, device=DEV, dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(batch, heads, seq, d_v, device=DEV, dtype=torch.bfloat16, requires_grad=True)
        for name, backend in backends:
            try:
                with sdpa_kernel([backend]):
                    with torch.no_grad():
                        ms_fwd = median_ms(lambda: f.scaled_dot_product_attention(q, k, v, is_causal=True))
                    out = f.scaled_dot_product_attention(q, k, v, is_causal=True)
                    grad = torch.randn_like(out)
                    ms_bwd = median_ms(lambda: torch.autograd.grad(out, (q, k, v), grad, retain_graph=True))
                    del out, grad
            except RuntimeError as e:  # the back end does not take this shape
                print(f"attention_passes: {name} {seq}x{heads}x{d_qk}/{d_v}: {str(e).splitlines()[0]}", flush=True)
                continue
            rows.append([name, seq, heads, d_qk, d_v, batch, forward_flops, ms_fwd * 1e3, ms_bwd * 1e3,
                         forward_flops / ms_fwd / 1e9, backward_flops / ms_bwd / 1e9])
        del q, k, v
    return rows


def optimizer_rows():
    rows = []
    for params in (50_000_000, 200_000_000):
        p = torch.nn.Parameter(torch.randn(params, device=DEV, dtype=torch.float32))
        p.grad = torch.randn_like(p)
        for fused in (True, False):
            opt = torch.optim.Adam([p], lr=1e-4, fused=fused, foreach=None if fused else True)
            ms = median_ms(opt.step, warmup=3, iterations=10)
            # fp32 Adam: read param, grad, m, v; write param, m, v = 7 × 4 B per parameter.
            rows.append(["fused" if fused else "foreach", params, ms * 1e3, params * 28 / ms / 1e6])
        del p
    return rows


def fused_softmax_rows():
    import triton
    import triton.language as tl

    @triton.jit
    def scale_mask_softmax(x_ptr, y_ptr, n_cols, scale, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        query = row % n_cols  # rows are (head, query) pairs of an n_cols x n_cols score matrix
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        x = tl.where(cols <= query, x * scale, float("-inf"))  # the causal mask
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        y = e / tl.sum(e, axis=0)
        tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=cols < n_cols)

    rows = []
    for seq, heads, batch in ((1024, 16, 4), (2048, 8, 1), (2048, 16, 4), (4096, 8, 1), (4096, 16, 2)):
        for dtype in (torch.float16, torch.bfloat16):
            x = torch.randn(batch * heads * seq, seq, device=DEV, dtype=dtype)
            y = torch.empty_like(x)
            block = triton.next_power_of_2(seq)
            fn = lambda: scale_mask_softmax[(x.shape[0],)](x, y, seq, 0.088, BLOCK=block, num_warps=8)
            fn()
            moved = 2 * x.numel() * x.element_size()
            ms = median_ms(fn)
            with torch.no_grad():
                ms_torch = median_ms(lambda: torch.softmax(x, dim=-1))
            rows.append([seq, heads, batch, str(dtype).split(".")[-1], moved, ms * 1e3, moved / ms / 1e6, ms_torch * 1e3,
                         moved / ms_torch / 1e6])
            del x, y
    return rows


SECTIONS = ("gemm", "grouped", "memory", "attention", "attention_passes", "optimizer", "softmax")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    chosen = set(sys.argv[2:]) or set(SECTIONS)
    os.makedirs(out, exist_ok=True)
    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}")
    torch.backends.cuda.matmul.allow_tf32 = False
    tables = {
        "gemm": (["dtype", "m", "n", "k", "flops", "us", "tflops"], gemm_rows),
        "grouped": (["gemm", "hidden", "ffn", "tokens_per_expert", "experts", "flops", "us", "tflops"], grouped_rows),
        "memory": (["kernel", "tensor_bytes", "bytes_moved", "us", "gb_per_s"], memory_rows),
        "attention": (["seq", "heads", "head_dim", "batch", "causal_flops", "full_flops", "score_bytes", "fused_us",
                       "unfused_us", "qk_us", "softmax_us", "fused_tflops", "unfused_tflops"], attention_rows),
        "attention_passes": (["backend", "seq", "heads", "head_dim_qk", "head_dim_v", "batch", "forward_flops",
                              "forward_us", "backward_us", "forward_tflops", "backward_tflops"], attention_pass_rows),
        "optimizer": (["adam", "params", "us", "gb_per_s"], optimizer_rows),
        "softmax": (["seq", "heads", "batch", "dtype", "bytes_moved", "fused_us", "fused_gb_per_s", "torch_us",
                     "torch_gb_per_s"], fused_softmax_rows),
    }
    for name in SECTIONS:
        if name in chosen:
            header, rows = tables[name]
            write(out, name + ".csv", header, rows())
            print(name, "done", flush=True)


if __name__ == "__main__":
    main()
