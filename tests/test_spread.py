"""semres.core.parallel.spread: joblib, the one backend of every chapter's inner work. The
results come back in order and do not depend on where each item ran: here, in worker
processes, or on a Dask cluster through joblib's dask backend."""

import os

import joblib
import pandas as pd
import pytest

from semres.core import book, parallel


def square(x):
    return x * x, os.getpid()


def test_on_one_core_every_item_runs_here_in_order(monkeypatch):
    monkeypatch.setattr(book, "cores", lambda: 1)
    seen = []

    def note(x):
        seen.append(x)
        return square(x)

    got = parallel.spread(note, range(5))
    assert [v for v, _ in got] == [0, 1, 4, 9, 16]
    assert seen == [0, 1, 2, 3, 4] and {pid for _, pid in got} == {os.getpid()}


def test_on_two_cores_workers_take_items_and_the_results_keep_their_order(monkeypatch):
    monkeypatch.setattr(book, "cores", lambda: 2)
    got = parallel.spread(square, range(12), batch_size=1)
    assert [v for v, _ in got] == [x * x for x in range(12)]
    assert {pid for _, pid in got} - {os.getpid()}  # some ran in a worker


def test_a_readers_joblib_configuration_decides_the_workers(monkeypatch):
    monkeypatch.setattr(book, "cores", lambda: 1)
    with joblib.parallel_config(backend="threading", n_jobs=3):
        assert parallel.jobs() == 3
        assert [v for v, _ in parallel.spread(square, range(7))] == [x * x for x in range(7)]
    assert parallel.jobs() == 1


def test_an_error_in_a_worker_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(book, "cores", lambda: 2)
    with pytest.raises(TypeError):
        parallel.spread(square, [1, 2, 3, "a"])


def test_a_chapter_run_as_a_plain_script_is_not_run_again_in_a_worker(tmp_path):
    """A chapter run with ``python`` has no ``if __name__ == "__main__"`` guard: its workers
    must not run it again."""
    import subprocess
    import sys

    log = tmp_path / "runs.txt"
    script = tmp_path / "chapter.py"
    script.write_text(
        "from semres.core import book, parallel\n"
        f"open({str(log)!r}, 'a').write('ran\\n')\n"
        "book.cores = lambda: 2\n"
        "out = parallel.spread(abs, [-7, 9, -5, 4])\n"
        "assert out == [7, 9, 5, 4], out\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert log.read_text() == "ran\n"


def test_chapter_7s_frontier_on_a_local_dask_cluster_gives_the_same_table(monkeypatch):
    """Chapter 7's n-item frontier (one optimiser run per (n, delta) group, through
    :func:`spread`) on a two-worker Dask cluster, as a reader with a cluster runs the paper
    profile, named by ``SEMRES_DASK_SCHEDULER`` or by joblib's configuration: the same table as
    in this process, bit for bit (but its seconds)."""
    distributed = pytest.importorskip("dask.distributed")
    from semres.experiments.frontier import floor_n

    def table():
        out = floor_n.frontier((3, 4), (0.05, 0.2), 12, 2, 1, 0)
        return out.drop(columns=[c for c in out if "seconds" in c])

    monkeypatch.setattr(book, "cores", lambda: 1)
    here = table()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with joblib.parallel_config(backend="dask", n_jobs=-1), \
                distributed.get_task_stream(client) as configured:
            by_config = table()
        monkeypatch.setenv(parallel.SCHEDULER, cluster.scheduler_address)
        with distributed.get_task_stream(client) as named:
            by_name = table()
        parallel._client(cluster.scheduler_address).close()  # the chapter's own connection
        parallel._client.cache_clear()
    assert len(configured.data) >= 4 and len(named.data) >= 4  # the four (n, delta) groups
    pd.testing.assert_frame_equal(here, by_config)
    pd.testing.assert_frame_equal(here, by_name)
