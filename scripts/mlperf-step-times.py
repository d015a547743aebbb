#!/usr/bin/env python3
"""aicb — the measured step times of scripts/mlperf-check.sh, read from MLPerf Training result logs.

MLPerf Training's submissions that run NeMo log every training step's time
(`:::MLLOG {... "key": "tracked_stats", "value": {"train_step_timing": SECONDS} ...}`, `train_step_time` in
2025's) beside the
global batch size and the gradient accumulation steps. This prints, for every result log under the
directories given (a clone of mlcommons/training_results_vX.Y, or any folder of its `result_N.txt`
files), the median step time over the logged steps after the first three (the first steps warm up),
and the median over a submission's logs: the measured time of a row of scripts/mlperf-check.sh. Logs
that time no step (LOG_METRICS=OFF) still mark their training blocks (`block_start` with the tokens the
block trains, `block_stop`): the block-derived column is the median over the blocks after the first
of a block's duration over its steps (tokens / (global batch x sequence)), which includes what runs
between steps.

    scripts/mlperf-step-times.py RESULTS_DIR [RESULTS_DIR ...]

A log without step times (another framework's) is listed with none; a file that is not an MLPerf log
is skipped with a note on stderr.
"""
import json
import pathlib
import statistics
import sys

WARM_UP_STEPS = 3


def read_log(path):
    """(global batch, gradient accumulation steps, step times, block-derived step times) of one log."""
    gbs = accumulation = sequence = None
    steps, blocks = [], []
    started = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if ":::MLLOG " not in line:
                continue
            try:
                record = json.loads(line.split(":::MLLOG ", 1)[1])
            except json.JSONDecodeError:
                continue
            key, value = record.get("key"), record.get("value")
            if key == "global_batch_size":
                gbs = value
            elif key == "gradient_accumulation_steps":
                accumulation = value
            elif key == "max_sequence_length":
                sequence = value
            elif key == "block_start":
                started = (record.get("time_ms"), (record.get("metadata") or {}).get("epoch_count"))
            elif key == "block_stop" and started and started[0] is not None and started[1]:
                blocks.append((record["time_ms"] - started[0], started[1]))
                started = None
            elif key == "tracked_stats" and isinstance(value, dict):
                # NeMo's step timer: train_step_timing (2023-24 rounds), train_step_time (2025).
                timer = value.get("train_step_timing", value.get("train_step_time"))
                if timer is not None:
                    steps.append(float(timer))
    per_block = []
    if gbs and sequence:
        per_block = [ms / 1000 / (tokens / (gbs * sequence)) for ms, tokens in blocks[1:]]
    return gbs, accumulation, steps, per_block


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    submissions = {}
    for root in argv[1:]:
        base = pathlib.Path(root)
        if not base.is_dir():
            print(f"mlperf-step-times: {root}: not a directory", file=sys.stderr)
            return 2
        for log in sorted(base.rglob("result_*.txt")):
            gbs, accumulation, steps, per_block = read_log(log)
            if gbs is None:
                print(f"mlperf-step-times: {log}: no MLPerf global_batch_size, skipped", file=sys.stderr)
                continue
            timed = steps[WARM_UP_STEPS:]
            median = statistics.median(timed) if timed else None
            block = statistics.median(per_block) if per_block else None
            submissions.setdefault(log.parent, []).append((gbs, accumulation, len(timed), median, block))
    print("| submission | global batch | accumulation | logs | steps per log | median step s | block-derived s |")
    print("|---|---|---|---|---|---|---|")

    def shown(values):
        values = [v for v in values if v is not None]
        return f"{statistics.median(values):.4f}" if values else "none"

    for folder, logs in sorted(submissions.items()):
        gbs, accumulation = logs[0][0], logs[0][1]
        steps = min(log[2] for log in logs)
        print(f"| {folder} | {gbs} | {accumulation} | {len(logs)} | {steps} | "
              f"{shown(log[3] for log in logs)} | {shown(log[4] for log in logs)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
