"""semres.core.book.spread: a map that takes the cores a finished lane hands over, with the
results in order and independent of where each item ran."""

import os

from semres.core import book


def square(x):
    return x * x, os.getpid()


def test_on_one_core_every_item_runs_here_in_order(monkeypatch):
    monkeypatch.setattr(book, "cores", lambda: 1)
    seen = []

    def note(x):
        seen.append(x)
        return square(x)

    got = book.spread(note, range(5))
    assert [v for v, _ in got] == [0, 1, 4, 9, 16]
    assert seen == [0, 1, 2, 3, 4] and {pid for _, pid in got} == {os.getpid()}


def test_a_freed_core_takes_items_in_a_worker_and_the_results_keep_their_order(monkeypatch):
    calls = iter([1, 1] + [2] * 100)  # one core for the first two items, then two
    monkeypatch.setattr(book, "cores", lambda: next(calls))
    got = book.spread(square, range(12))
    assert [v for v, _ in got] == [x * x for x in range(12)]
    pids = [pid for _, pid in got]
    assert pids[:2] == [os.getpid()] * 2  # before the core was freed: here, in order
    assert set(pids) - {os.getpid()}  # after: some in the worker
    assert pids[-1] != os.getpid()  # the worker takes from the end


def test_an_error_in_a_worker_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(book, "cores", lambda: 2)
    try:
        book.spread(square, [1, 2, 3, "a"])  # the worker takes the last item first
    except TypeError:
        pass
    else:
        raise AssertionError("the worker's TypeError was lost")


def test_a_chapter_run_as_a_plain_script_is_not_run_again_in_the_worker(tmp_path):
    """spawn runs the parent's __main__ again in a worker unless told not to: a script with no
    ``if __name__ == "__main__"`` (a chapter run with ``python``) would run twice."""
    import subprocess
    import sys

    log = tmp_path / "runs.txt"
    script = tmp_path / "chapter.py"
    script.write_text(
        "import os\n"
        "from semres.core import book\n"
        f"open({str(log)!r}, 'a').write('ran\\n')\n"
        "book.cores = lambda: 2\n"
        "out = book.spread(abs, [-7, 9, -5, 4])\n"
        "assert out == [7, 9, 5, 4], out\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert log.read_text() == "ran\n"


def interrupt_ignored(_):
    import signal

    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN, os.getpid()


def test_a_worker_leaves_interrupts_to_the_chapter(monkeypatch):
    """The kernel's shutdown interrupts its whole process group: an idle worker printed a
    KeyboardInterrupt traceback into the build's log. Workers ignore SIGINT; this process not."""
    import signal

    monkeypatch.setattr(book, "cores", lambda: 2)
    got = book.spread(interrupt_ignored, range(6))
    assert all(ignored for ignored, pid in got if pid != os.getpid())
    assert any(pid != os.getpid() for _, pid in got)
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
