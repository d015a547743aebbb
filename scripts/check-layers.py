#!/usr/bin/env python3
# aicb — fails when a header includes a header of a higher floor. Each folder of include/aicb is a
# floor; the floors, lowest first:
#
#   0 core        the top-level headers (configuration, version, errors, checked arithmetic, dtypes,
#                 concepts, the JSON writer), units/, detail/
#   1 vocabulary  workload/ (records, collectives, groups, record streams), model/ (descriptors)
#   2 layout      parallel/ (ranks and groups)
#   3 schedules   schedule/ (the layer description and the per-rank operation graph)
#   4 calculators calc/ (parameters, FLOPs, memory, traffic, reports, shapes by size): sums of the graph
#   5 compute     compute/ (compute models, profiles, the estimate and the planner)
#   6 formats     io/ (readers, writers, lint; their grammars in io/detail/)
#   7 generators  generate/ (projections of the graph onto formats' records and items), run/ (replay)
#   8 compat      compat/ (aicb's emulators): nothing below it includes it, so corrected code never
#                 depends on an emulator
#   9 front ends  commands/ (what the tool's subcommands do, as functions) and the umbrellas
#                 aicb.hpp, core.hpp, readers.hpp, compat.hpp, all.hpp
#
# A header may include its own floor and those below. A header's floor is its folder's, with no
# exception for single files; the umbrellas are the top-level headers that gather the others.
#
# It also keeps the light headers light: nothing `<aicb/core.hpp>` reaches may include range-v3, Spirit,
# nlohmann-json or Boost.Hana, and nothing `<aicb/aicb.hpp>` reaches may include Spirit or nlohmann-json (the readers,
# in `<aicb/readers.hpp>`, are where those live) or an emulator (`<aicb/compat.hpp>` is where those live).
#
#   scripts/check-layers.py [include-dir]
import pathlib
import re
import sys

UMBRELLAS = {"aicb.hpp", "core.hpp", "readers.hpp", "compat.hpp", "all.hpp"}
FOLDERS = {"units": 0, "detail": 0, "workload": 1, "model": 1, "parallel": 2, "schedule": 3, "calc": 4,
           "compute": 5, "io": 6, "generate": 7, "run": 7, "compat": 8, "commands": 9}
NAMES = {0: "core", 1: "vocabulary", 2: "layout", 3: "schedules", 4: "calculators", 5: "compute",
         6: "formats", 7: "generators", 8: "compat", 9: "front ends"}
INCLUDE = re.compile(r'#\s*include\s*<aicb/([^>]+)>')
ANY_INCLUDE = re.compile(r'#\s*include\s*<([^>]+)>')
# What each light header may not reach, by include-path prefix.
HEAVY = {"core.hpp": ["range/v3/", "boost/spirit/", "nlohmann/", "boost/hana", "aicb/compat/"],
         "aicb.hpp": ["boost/spirit/", "nlohmann/", "aicb/compat/"]}


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
            if any(target.startswith(prefix) for prefix in banned):
                found.append(f"aicb/{root} reaches <{target}> through aicb/{name}")
            elif target.startswith("aicb/"):
                stack.append(target[len("aicb/"):])
    return found


def layer(path: str) -> int:
    folder, _, rest = path.partition("/")
    if not rest:
        return 9 if path in UMBRELLAS else 0
    if folder not in FOLDERS:
        raise SystemExit(f"check-layers: no floor for the folder aicb/{folder}/: add it to scripts/check-layers.py")
    return FOLDERS[folder]


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
