import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
if os.environ.get("PYTEST_XDIST_WORKER"):
    # Beside another worker and the book's chapters, a pool of threads or processes wider than
    # this worker's share of the cores spins and starts more than it works (a test ran 15x
    # slower): OpenMP, BLAS, torch and joblib take one unless a test asks for more. Set before
    # numpy or torch loads; the chapters these tests start inherit it.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "LOKY_MAX_CPU_COUNT"):
        os.environ.setdefault(var, "1")


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """The whole book built once from quick-profile chapters, shared by the book and render tests
    (executing every chapter twice would double CI's longest step), two chapters at a time
    where there are two cores: chapter 5's language models then run beside the rest."""
    from semres.pipeline import book as bookmaker
    from semres.core.book import cores

    build = tmp_path_factory.mktemp("build")
    jobs = min(2, cores())
    index, failures = bookmaker.build_book("quick", build=build, progress=False, jobs=jobs)
    return build, index, failures


def pytest_collection_modifyitems(items):
    """Longest first, for two workers: the book's tests (one group: the book is built once),
    then the tests that execute whole chapters, then the rest in their order. A long test
    left for last runs alone while the other worker waits."""
    items.sort(key=lambda item: (item.get_closest_marker("xdist_group") is None,
                                 item.get_closest_marker("chapters") is None))
