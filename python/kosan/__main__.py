"""`python -m kosan COMMAND ...` (the `kosan` script): the package's commands.

    kosan judge PROBLEM.py CANDIDATE.py ...   judge KernelBench candidates (docs/judge.md)
    kosan campaign KERNEL_DIR --out DIR       mutation analysis of a kernel set (docs/mutate.md)
"""

from __future__ import annotations

import sys

COMMANDS = {"judge": "judge KernelBench candidates against a problem (docs/judge.md)",
            "campaign": "mutation analysis of a kernel set: mutants, oracles, scores (docs/mutate.md)"}

USAGE = "usage: kosan COMMAND [ARGS...]\n\ncommands:\n" + "".join(
    f"  {name:8} {text}\n" for name, text in COMMANDS.items())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE) if argv else sys.stderr.write(USAGE)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "judge":
        from .judge._cli import main as judge_main
        return judge_main(rest)
    if command == "campaign":
        from .campaign import main as campaign_main
        return campaign_main(rest)
    sys.stderr.write(f"kosan: unknown command {command!r}\n{USAGE}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
