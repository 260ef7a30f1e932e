"""``semres list | run CHAPTER | book``: the command line readers and CI use.

Usage errors exit 2 with one line naming the problem and the valid choices; a chapter that fails
exits 1 with one line saying where.
"""

from __future__ import annotations

import argparse
import sys

from semres import runner
from semres.profiles import PROFILES


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        print(f"semres: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="semres", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="list the chapters and their parameters")
    run = sub.add_parser("run", help="execute one chapter with papermill")
    run.add_argument("chapter", help="number (3), full name (03_toy_relu) or short name (toy_relu)")
    run.add_argument("--profile", choices=PROFILES, default="default")
    run.add_argument("-p", dest="params", action="append", default=[], metavar="KEY=VALUE",
                     help="override a parameter of the chapter (repeatable)")
    book = sub.add_parser("book", help="execute every chapter and build the HTML book")
    book.add_argument("--profile", choices=PROFILES, default="default")
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # usage errors and --help
        return int(exit_.code or 0)
    try:
        if args.command == "list":
            for ch in runner.chapters():
                params = ", ".join(f"{k}={v!r}" for k, v in runner.parameters(ch).items())
                print(f"{ch.number}  {ch.name:<24} {params}")
            return 0
        if args.command == "run":
            chapter = runner.resolve(args.chapter)
            params = runner.parse_overrides(args.params, runner.parameters(chapter), chapter.name)
    except ValueError as err:
        print(f"semres: error: {err}", file=sys.stderr)
        return 2

    try:
        if args.command == "run":
            out = runner.run_chapter(chapter, args.profile, params, progress=True)
            print(f"[semres] executed {chapter.name} -> {out}")
            return 0
        index, failures = runner.build_book(args.profile)
    except runner.ChapterError as err:
        print(f"semres: {err}", file=sys.stderr)
        return 1
    for failure in failures:
        print(f"semres: {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"[semres] book built: open file://{index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
