"""A swept tree is linted as a checkout, as a user lints it: a recipe that picks its launcher by
testing where it lies (`[ -f "${DIR}/../dist/launcher.sh" ]`, else a copy under `$HOME`) finds it
beside itself in the repository, and neither counts FL011 for the places it does not lie nor
misses what the launcher launches."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from sweeping import copied_out, run_flaglint  # noqa: E402

RECIPE = """\
#!/bin/bash
set -e
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export MAXTEXT_STEPS="${MAXTEXT_STEPS:-ten}"
if [ -f "${DIR}/../dist/launcher.sh" ]; then
  LAUNCHER="${DIR}/../dist/launcher.sh"
elif [ -f "${HOME}/src/tree/dist/launcher.sh" ]; then
  LAUNCHER="${HOME}/src/tree/dist/launcher.sh"
else
  echo "launcher.sh not found" >&2
  exit 1
fi
exec "${LAUNCHER}" start
"""

LAUNCHER = """\
#!/bin/bash
python3 -m maxtext.train src/maxtext/configs/base.yml run_name=r steps="${MAXTEXT_STEPS}"
"""


def _tree(root: Path) -> Path:
    (root / "recipes").mkdir(parents=True)
    (root / "dist").mkdir()
    (root / "recipes" / "run.sh").write_text(RECIPE)
    (root / "dist" / "launcher.sh").write_text(LAUNCHER)
    return root


def _rules(root: Path) -> list[str]:
    run = run_flaglint(root, "lint", root / "recipes" / "run.sh", ["--pin", "maxtext-0.2.5"], 120)
    assert run.rc in (0, 1), run.error
    return [finding["rule"] for finding in run.findings]


def test_a_launcher_found_beside_the_recipe_is_followed_in_the_swept_copy(tmp_path):
    with copied_out(str(_tree(tmp_path / "tree"))) as root:
        rules = _rules(root)
    assert "FL011" not in rules
    assert rules  # steps=ten, which MaxText refuses, is found in the launcher the recipe runs


def test_outside_a_checkout_the_recipe_folder_bounds_what_is_known(tmp_path):
    # the same tree read in place, without a repository around it: `../dist` is outside what
    # lint may take as there, so the places the launcher might lie instead are not followed
    assert "FL011" in _rules(_tree(tmp_path / "tree"))
