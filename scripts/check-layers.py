#!/usr/bin/env python3
# aicb — fails when a header includes a header of a higher layer. The layers, lowest first:
#
#   0 core        config, version, error, checked, dtype, concepts, fwd, units/, detail/
#   1 vocabulary  workload/ (records, collectives, groups, record streams), model/ (descriptors)
#   2 layout      parallel/ (ranks and groups), calc/ (parameters, FLOPs, memory, traffic)
#   3 schedules   schedule/ (the per-rank operation graph)
#   4 compute     compute/ (compute models, profiles, the profiling plan)
#   5 formats     io/ (readers, writers, lint)
#   6 generators  generate/ (projections of the graph onto formats' records and items)
#   7 compat      compat/ (aicb's emulators)
#   8 front ends  commands/ (what the tool's subcommands do, as functions); aicb.hpp, core.hpp,
#                 readers.hpp, compat.hpp, all.hpp
#
# A header may include its own layer and those below. Placed by what they need rather than by folder:
# `io/json_writer.hpp` (depends on nothing but the configuration: every layer may render JSON with it)
# and `compat/aicb_args.hpp` (aicb's argument set, a descriptor) are core and vocabulary;
# `model/sizing.hpp` and `model/job_request.hpp` (shapes chosen by parameter count) are calculators, and
# so is `schedule/layer.hpp` (the layer description the calculators sum and the schedules instantiate);
# `calc/traffic.hpp` and `calc/report.hpp` sum the per-rank graph, so they sit with the schedules; the
# grammars under `detail/grammar/` belong to the formats that parse with them.
#
# It also keeps the light headers light: nothing `<aicb/core.hpp>` reaches may include range-v3, Spirit or
# nlohmann-json, and nothing `<aicb/aicb.hpp>` reaches may include Spirit or nlohmann-json (the readers,
# in `<aicb/readers.hpp>`, are where those live).
#
#   scripts/check-layers.py [include-dir]
import pathlib
import re
import sys

LAYERS = [
    (0, ["io/json_writer.hpp"]),
    (1, ["compat/aicb_args.hpp"]),
    (3, ["calc/traffic.hpp", "calc/report.hpp"]),
    (5, ["detail/grammar/"]),
    (0, ["config.hpp", "version.hpp", "error.hpp", "checked.hpp", "dtype.hpp", "concepts.hpp", "fwd.hpp",
         "units/", "detail/"]),
    (2, ["model/sizing.hpp", "model/job_request.hpp", "schedule/layer.hpp"]),
    (1, ["workload/", "model/"]),
    (2, ["parallel/", "calc/"]),
    (3, ["schedule/"]),
    (4, ["compute/"]),
    (5, ["io/"]),
    (6, ["generate/", "run/"]),
    (7, ["compat/"]),
    (8, ["aicb.hpp", "core.hpp", "readers.hpp", "compat.hpp", "all.hpp", "commands/"]),
]
NAMES = {0: "core", 1: "vocabulary", 2: "layout", 3: "schedules", 4: "compute", 5: "formats",
         6: "generators", 7: "compat", 8: "front ends"}
INCLUDE = re.compile(r'#\s*include\s*<aicb/([^>]+)>')
ANY_INCLUDE = re.compile(r'#\s*include\s*<([^>]+)>')
# What each light header may not reach, by include-path prefix.
HEAVY = {"core.hpp": ["range/v3/", "boost/spirit/", "nlohmann/"], "aicb.hpp": ["boost/spirit/", "nlohmann/"]}


def heavy_reached(base: pathlib.Path, root: str, banned: list[str]) -> list[str]:
    """The banned includes reachable from aicb/<root>, each with the header that includes it."""
    seen, stack, found = set(), [root], []
    while stack:
        name = stack.pop()
        if name in seen or not (base / name).is_file():
            continue
        seen.add(name)
        for line in (base / name).read_text(encoding="utf-8").splitlines():
            m = ANY_INCLUDE.match(line.strip())
            if not m:
                continue
            target = m.group(1)
            if target.startswith("aicb/"):
                stack.append(target[len("aicb/"):])
            elif any(target.startswith(prefix) for prefix in banned):
                found.append(f"aicb/{root} reaches <{target}> through aicb/{name}")
    return found


def layer(path: str) -> int:
    for number, prefixes in LAYERS:  # first match wins: specific files before their folders
        for prefix in prefixes:
            if path == prefix or (prefix.endswith("/") and path.startswith(prefix)):
                return number
    raise SystemExit(f"check-layers: no layer for aicb/{path}: add it to scripts/check-layers.py")


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent / "include")
    base = root / "aicb"
    found = []
    headers = sorted(base.rglob("*.hpp"))
    for header in headers:
        own = header.relative_to(base).as_posix()
        mine = layer(own)
        for number, line in enumerate(header.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line.strip())
            if m and layer(m.group(1)) > mine:
                theirs = layer(m.group(1))
                found.append(f"aicb/{own}:{number}: includes aicb/{m.group(1)} ({NAMES[theirs]}, layer {theirs}) "
                             f"from layer {mine} ({NAMES[mine]})")
    for root, banned in HEAVY.items():
        found += heavy_reached(base, root, banned)
    for f in found:
        print(f)
    print(f"{len(headers)} headers checked: " + ("every include is on its layer or below, the light headers stay light" if not found
                                                   else f"{len(found)} includes reach up or weigh down"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
