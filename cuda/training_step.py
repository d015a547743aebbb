#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""One GPU's training step, timed, to check aicb's iteration estimate end to end on this machine's GPU.

A Llama-2-7B-shaped decoder cut to a few layers (h 4096, 32 heads of 128, SwiGLU FFN 11008, RMSNorm, no
rotary embedding — the operations aicb's schedules price), vocabulary 32000, bf16, trained as Megatron trains:
bf16 weights, fp32 main gradients and weights, fused Adam on the fp32 copy, the bf16 weights refreshed from it.
Attention is PyTorch's scaled_dot_product_attention (fused, causal) or, with `unfused`, the score matrix
written, softmax, dropout and the weighted values as separate kernels.

Prints one line per configuration: layers, sequence, micro batch, attention, and the median step time over 10
timed steps after 3 warm-up steps (CUDA events). Compare with
  aicb describe --model llama2-7b --num-layers L --seq S --mbs B --global-batch B --world-size 1 \\
      --attention flash|unfused --gpu H200 --cluster dgx-h200

  training_step.py [OUT.csv]
"""
import statistics
import sys

import torch
import torch.nn.functional as F
from torch import nn


class Layer(nn.Module):
    def __init__(self, h, heads, ffn, fused):
        super().__init__()
        self.heads, self.fused = heads, fused
        self.norm1, self.norm2 = nn.RMSNorm(h), nn.RMSNorm(h)
        self.qkv = nn.Linear(h, 3 * h, bias=False)
        self.out = nn.Linear(h, h, bias=False)
        self.fc1 = nn.Linear(h, 2 * ffn, bias=False)
        self.fc2 = nn.Linear(ffn, h, bias=False)

    def attention(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        if self.fused:
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            scores = torch.matmul(q, k.transpose(-1, -2)) * (q.shape[-1] ** -0.5)
            mask = torch.ones(s, s, device=x.device, dtype=torch.bool).triu(1)
            p = F.dropout(torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1), 0.1, self.training)
            o = torch.matmul(p, v)
        return self.out(o.transpose(1, 2).reshape(b, s, h))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        gate, up = self.fc1(self.norm2(x)).chunk(2, dim=-1)
        return x + self.fc2(F.silu(gate) * up)


class Model(nn.Module):
    def __init__(self, layers, h=4096, heads=32, ffn=11008, vocab=32000, fused=True):
        super().__init__()
        self.embedding = nn.Embedding(vocab, h)
        self.layers = nn.ModuleList(Layer(h, heads, ffn, fused) for _ in range(layers))
        self.norm = nn.RMSNorm(h)
        self.logits = nn.Linear(h, vocab, bias=False)

    def forward(self, tokens, labels):
        x = self.embedding(tokens)
        for layer in self.layers:
            x = layer(x)
        return F.cross_entropy(self.logits(self.norm(x)).flatten(0, 1).float(), labels.flatten())


def step_ms(layers, seq, micro_batch, fused):
    torch.manual_seed(0)
    model = Model(layers, fused=fused).cuda().to(torch.bfloat16)
    params = list(model.parameters())
    main = [p.detach().float().clone().requires_grad_(True) for p in params]  # fp32 main weights
    for m in main:
        m.grad = torch.zeros_like(m)
    optimizer = torch.optim.Adam(main, lr=1e-5, fused=True)
    tokens = torch.randint(0, 32000, (micro_batch, seq), device="cuda")
    labels = torch.randint(0, 32000, (micro_batch, seq), device="cuda")

    def step():
        loss = model(tokens, labels)
        loss.backward()
        with torch.no_grad():
            for p, m in zip(params, main):
                m.grad.copy_(p.grad)  # fp32 main gradients
                p.grad = None
            torch.nn.utils.clip_grad_norm_(main, 1.0)
            optimizer.step()
            for p, m in zip(params, main):
                p.copy_(m)  # the bf16 weights refreshed

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(10):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    del model, main, optimizer
    torch.cuda.empty_cache()
    return statistics.median(times)


def main():
    rows = []
    for layers, seq, micro_batch, fused in ((4, 4096, 1, True), (4, 2048, 4, True), (8, 4096, 2, True),
                                            (4, 2048, 2, False)):
        ms = step_ms(layers, seq, micro_batch, fused)
        row = (layers, seq, micro_batch, "flash" if fused else "unfused", ms)
        rows.append(row)
        print("layers %d seq %d micro_batch %d attention %s: %.2f ms" % row, flush=True)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write("layers,seq,micro_batch,attention,step_ms\n")
            for r in rows:
                f.write("%d,%d,%d,%s,%.3f\n" % r)


if __name__ == "__main__":
    main()
