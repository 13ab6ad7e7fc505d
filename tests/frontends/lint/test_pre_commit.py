"""The README's `pre-commit try-repo` example, run for real on a throwaway repository."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from commandline import EXAMPLES, REPO

pre_commit = shutil.which("pre-commit") or (Path(sys.executable).parent / "pre-commit")


@pytest.mark.slow  # pre-commit builds a virtual environment and installs flaglint into it
@pytest.mark.skipif(not Path(pre_commit).exists(), reason="pre-commit is not installed (pip install '.[test]')")
@pytest.mark.skipif(not (REPO / ".git").exists(), reason="try-repo needs this checkout to be a git repository")
def test_try_repo_runs_the_recipe_hook(tmp_path):
    for name in ("base.sh", "tuned_block.sh", "mlperf_397b_128_v7x.sh", "mlperf_397b_256_v7x_before.sh", "mlperf_397b_256_v7x_after.sh"):
        shutil.copy(EXAMPLES / "recipes" / name, tmp_path / name)
    (tmp_path / "pyproject.toml").write_text('[tool.flaglint]\npin = "bbd0f6f10"\n')
    git = ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "recipes"], cwd=tmp_path, check=True)

    def hook(*files):
        return subprocess.run([str(pre_commit), "try-repo", str(REPO), "flaglint-recipes", "--files", *files],
                              cwd=tmp_path, capture_output=True, text=True, timeout=900)

    good = hook("mlperf_397b_256_v7x_after.sh", "mlperf_397b_128_v7x.sh")
    assert good.returncode == 0, good.stdout + good.stderr
    bad = hook("mlperf_397b_256_v7x_before.sh")
    assert bad.returncode == 1 and "FL101" in bad.stdout
