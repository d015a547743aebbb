#!/usr/bin/env python3
# aicb — fails when a code block in README.md or docs/ differs from the example it quotes.
#
# A quoted block is announced by an HTML comment on the line before its opening fence:
#   <!-- snippet: examples/vocabulary.cpp#vocabulary -->
# and must equal the lines between `//! [vocabulary]` markers in that file (markers excluded).
# Code blocks without an announcement must be shell commands (```sh) or plain text (```text).
# With --fix, announced blocks are rewritten from their examples instead.
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANNOUNCE = re.compile(r"<!--\s*snippet:\s*(\S+?)#(\S+)\s*-->")


def region(path: Path, name: str) -> str:
    lines = path.read_text().splitlines()
    marker = f"//! [{name}]"
    idx = [i for i, line in enumerate(lines) if line.strip() == marker]
    if len(idx) != 2:
        raise ValueError(f"{path.relative_to(ROOT)}: expected two '{marker}' markers, found {len(idx)}")
    return "\n".join(lines[idx[0] + 1 : idx[1]])


def check(doc: Path, fix: bool = False) -> list[str]:
    problems = []
    lines = doc.read_text().splitlines()
    fixed = list(lines)
    offset = 0
    i = 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)", lines[i])
        if not fence:
            i += 1
            continue
        start = i
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        body = "\n".join(lines[start + 1 : end])
        announce = ANNOUNCE.search(lines[start - 1]) if start > 0 else None
        where = f"{doc.relative_to(ROOT)}:{start + 1}"
        if announce:
            try:
                expected = region(ROOT / announce.group(1), announce.group(2))
                if body != expected and fix:
                    new = expected.split("\n")
                    fixed[start + 1 + offset : end + offset] = new
                    offset += len(new) - (end - start - 1)
                elif body != expected:
                    problems.append(f"{where}: code block differs from {announce.group(1)}#{announce.group(2)}")
            except (OSError, ValueError) as e:
                problems.append(f"{where}: {e}")
        elif fence.group(1) not in ("sh", "text", "console", ""):
            problems.append(f"{where}: a ```{fence.group(1)} block must quote a compiled example (snippet comment)")
        i = end + 1
    if fix and fixed != lines:
        doc.write_text("\n".join(fixed) + "\n")
    return problems


def main() -> int:
    fix = "--fix" in sys.argv[1:]
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    problems = [p for doc in docs if doc.is_file() for p in check(doc, fix)]
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"{len(docs)} documents checked: every code block is a command or a compiled example")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
