#!/usr/bin/env python3
# aicb — fails when a header under include/ includes a POSIX- or platform-only header outside a
# preprocessor guard that names the platform (`#if defined(__unix__) ...`, `_WIN32`, `__APPLE__`):
# the library a simulator vendors must build on any platform with a C++20 compiler.
#
#   scripts/check-portable-includes.py [include-dir]
import pathlib
import re
import sys

PLATFORM_ONLY = re.compile(
    r"#\s*include\s*<(unistd\.h|fcntl\.h|dirent\.h|dlfcn\.h|pthread\.h|poll\.h|termios\.h|"
    r"sys/[^>]+|netinet/[^>]+|arpa/[^>]+|windows\.h|io\.h|direct\.h)>")
GUARD = re.compile(r"#\s*(if|ifdef|elif)\b.*(__unix__|__linux__|__APPLE__|_WIN32|_POSIX_VERSION)")


def problems(root: pathlib.Path):
    found = []
    for header in sorted(root.rglob("*.hpp")):
        guards = []  # open #if blocks: True when the block names a platform
        for number, line in enumerate(header.read_text(encoding="utf-8").splitlines(), 1):
            stripped = line.strip()
            if re.match(r"#\s*(if|ifdef|ifndef)\b", stripped):
                guards.append(bool(GUARD.match(stripped)))
            elif re.match(r"#\s*elif\b", stripped) and guards:
                guards[-1] = guards[-1] or bool(GUARD.match(stripped))
            elif re.match(r"#\s*endif\b", stripped) and guards:
                guards.pop()
            elif PLATFORM_ONLY.match(stripped) and not any(guards):
                found.append(f"{header}:{number}: {stripped} is platform-only: guard it "
                             "(#if defined(__unix__) || defined(__APPLE__)) and give the other platforms a path")
    return found


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent / "include")
    found = problems(root)
    for p in found:
        print(p)
    print(f"{len(list(root.rglob('*.hpp')))} headers checked: "
          + ("every platform-only include is guarded" if not found else f"{len(found)} unguarded"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
