"""The book offers the exact source it was built from: the tracked files of the checkout."""

import subprocess
import tarfile

from semres.pipeline.book import pack_source


def test_the_source_archive_holds_exactly_the_tracked_files(tmp_path):
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "a.py").write_text("x = 1\n")
    (repo / "README.md").write_text("readme\n")
    (repo / "untracked.txt").write_text("not in git\n")
    (repo / "_build").mkdir()
    (repo / "_build" / "out.csv").write_text("generated\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "src/a.py", "README.md"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "c"], cwd=repo, check=True)
    archive = pack_source(repo, tmp_path / "static" / "semres-source.tar.gz")
    with tarfile.open(archive) as tar:
        assert sorted(tar.getnames()) == ["semres/README.md", "semres/src/a.py"]
        assert tar.extractfile("semres/src/a.py").read() == b"x = 1\n"
