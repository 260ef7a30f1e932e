"""``semres list | run CHAPTER | book``: the command line readers and CI use.

Usage errors (a parameter value the chapter's settings reject included) exit 2 with one line
naming the problem and the valid choices, before anything is touched; a chapter that fails, or
that another process is running, exits 1 with one line saying where; SIGINT and SIGTERM stop the
run and exit 130 and 143. In every one of these cases the last good outputs stay in place.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from semres.core.profiles import PROFILES
from semres.pipeline import book as bookmaker
from semres.pipeline import runner
from semres.pipeline.registry import check_parameters


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
    book.add_argument("--jobs", type=_positive, default=1, metavar="N",
                      help="chapters run at once, each on a core of its own (default 1)")
    book.add_argument("--rerun", action="store_true",
                      help="run every chapter, even those whose inputs did not change")
    return parser


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1; got {text!r}")
    return int(text)


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
            check_parameters(chapter.name, args.profile, params)
    except ValueError as err:
        print(f"semres: error: {err}", file=sys.stderr)
        return 2

    # SIGTERM stops a run like Ctrl-C (signals reach only the main thread)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    try:
        if args.command == "run":
            out = runner.run_chapter(chapter, args.profile, params, progress=True)
            print(f"[semres] executed {chapter.name} -> {out}")
            return 0
        index, failures = bookmaker.build_book(args.profile, jobs=args.jobs, rerun=args.rerun)
    except runner.Interrupted as err:
        print(f"semres: {err}", file=sys.stderr)
        return 128 + err.signum
    except runner.ChapterError as err:
        print(f"semres: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # between chapters of a book build
        print("semres: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    for failure in failures:
        print(f"semres: {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"[semres] book built: open file://{index}")
    return 0


def _terminate(signum, frame):
    raise runner.Interrupted("stopped by SIGTERM", signum)


if __name__ == "__main__":
    sys.exit(main())
