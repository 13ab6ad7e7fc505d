"""The pin store: `flaglint schema import PATH` registers a MaxText tree, wheel or installed package
as a pin (by version and by git commit), `--pin` finds it, requirements files resolve to it,
`flaglint pins` lists it and `flaglint pins diff` compares it; bad input is one line, exit 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from maxtext_env import REPO

from flaglint.cli import main
from flaglint.core.findings import InputError
from flaglint.core.gitrefs import checkout_commit
from flaglint.frontends.checker import Checker
from flaglint.pins import pins, store
from flaglint.read.flags import FlagSource
from flaglint.resolve.topology import from_config, from_option
from flaglint.rules.ruleset import load_ruleset
from flaglint.schema.config_index import load_index

COMMIT = "0123456789abcdef0123456789abcdef01234567"
OTHER = "fedcba9876543210fedcba9876543210fedcba98"
# The id of the tree's one validator (num_chunks > 1 needs use_ring): a hash of what it checks and where.
CHUNKS_RULE = "MX1XEFK"

TYPES = """\
from enum import Enum
from pydantic import BaseModel, Field, model_validator

class Mode(str, Enum):
  FAST = "fast"
  SLOW = "slow"

class Chunking(BaseModel):
  num_chunks: int = Field(1, gt=0)
  use_ring: bool = False

class MaxTextConfig(Chunking):
  mode: Mode = Field(Mode.FAST)
  cache_dir: str = Field(os.path.join(os.path.expanduser("~"), "cache"))
  compile_topology: str = ""
  compile_topology_num_slices: int = -1
{extra}
  @model_validator(mode="after")
  def check_chunks(self):
    if self.num_chunks > 1 and not self.use_ring:
      raise ValueError("num_chunks > 1 requires use_ring=True.")
{more_checks}    return self
"""


def make_tree(root: Path, version: str = "9.1.0", extra: str = "", more_checks: str = "", commit: str | None = COMMIT) -> Path:
    """A MaxText source tree (src/maxtext/...) as a git checkout at COMMIT, HEAD on a packed branch."""
    package = root / "src" / "maxtext"
    (package / "configs" / "models").mkdir(parents=True)
    (package / "configs" / "types.py").write_text(TYPES.format(extra=extra, more_checks=more_checks))
    (package / "configs" / "base.yml").write_text("num_chunks: 1\nuse_ring: false\nmode: fast\n")
    (package / "configs" / "models" / "tiny.yml").write_text("num_chunks: 1\n")
    (package / "version.py").write_text(f'__version__ = "{version}"\n')
    if commit:
        (root / ".git").mkdir()
        (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (root / ".git" / "packed-refs").write_text(f"# pack-refs with: peeled\n{commit} refs/heads/main\n")
    return root


@pytest.fixture(autouse=True)
def isolated_stores(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    for cached in (pins.load_pin, store.project_store):
        cached.cache_clear()
    yield
    for cached in (pins.load_pin, store.project_store):
        cached.cache_clear()


def flaglint(*args: str):
    result = CliRunner().invoke(main, list(args))
    pins.load_pin.cache_clear()
    return result


# ---- import and check ----


def test_a_checkout_is_a_pin_by_commit_and_by_a_prefix_of_seven(tmp_path):
    tree = make_tree(tmp_path / "maxtext")
    done = flaglint("schema", "import", str(tree))
    assert done.exit_code == 0, done.output
    assert "6 keys" in done.output and "imported as checkable rules: 1" in done.output
    assert "defaults computed at run time: 1: cache_dir = os.path.join(os.path.expanduser('~'), 'cache')" in done.output
    assert f"registered {COMMIT}" in done.output
    assert (tmp_path / "xdg" / "flaglint" / "pins" / COMMIT / "pin.json").is_file()
    index = load_index(pins.load_pin(COMMIT).configs)  # the checkout's own configs/**/*.yml
    assert sorted(index.files) == ["base.yml", "models/tiny.yml"] and index.get("base.yml").lines["use_ring"] == 2

    for pin in (COMMIT, COMMIT[:7]):
        result = Checker(pin).check(FlagSource("num_chunks=2 mode=slow"), fix=False)
        assert [f.rule for f in result.findings] == [CHUNKS_RULE], pin
    assert [f.rule for f in Checker(COMMIT[:7]).check(FlagSource("mode=FAST"), fix=False).findings] == ["FL005"]
    with pytest.raises(InputError, match="unknown pin '0123456'"[:-2]):
        pins.canonical_pin("012345")  # six characters name nothing

    listing = flaglint("pins")
    assert listing.exit_code == 0
    assert re.search(rf"^{COMMIT}  MaxText  9\.1\.0 +user store +maxtext 9\.1\.0 at commit 0123456789ab, imported from {re.escape(str(tree.resolve()))}$",
                     listing.output, re.M), listing.output
    assert re.search(r"^maxtext-0\.2\.0 +MaxText +0\.2\.0 +release +bundled \(schemas/maxtext-0\.2\.0\.json\)$", listing.output, re.M)
    listed = {p["pin"]: p for p in json.loads(flaglint("pins", "--format", "json").output)["pins"]}
    assert listed[COMMIT] == {"pin": COMMIT, "program": "MaxText", "version": "9.1.0", "kind": "user store", "extends": None,
                              "about": f"maxtext 9.1.0 at commit 0123456789ab, imported from {tree.resolve()}", "file": None}
    assert listed["22fa0c559"]["extends"] == "d66a82096" and listed["22fa0c559"]["about"].endswith("AI-Hypercomputer/maxtext#5698)")


def test_a_wheel_is_a_pin_by_its_version(tmp_path):
    tree = make_tree(tmp_path / "tree", commit=None)
    wheel = tmp_path / "maxtext-9.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path in (tree / "src").rglob("*"):
            if path.is_file():
                archive.write(path, path.relative_to(tree / "src"))
    assert flaglint("schema", "import", str(wheel)).exit_code == 0
    assert pins.canonical_pin("9.1.0") == "maxtext-9.1.0"
    assert pins.load_pin("maxtext-9.1.0").version == "9.1.0"


def test_a_tree_without_git_is_named_by_its_version_and_a_hash_of_what_it_defines(tmp_path):
    first = flaglint("schema", "import", str(make_tree(tmp_path / "a", commit=None)))
    again = flaglint("schema", "import", str(make_tree(tmp_path / "b", commit=None)))
    other = flaglint("schema", "import", str(make_tree(tmp_path / "c", commit=None, extra="  extra_key: int = 0\n")))
    names = [re.search(r"registered (\S+) in the user store", done.output)[1] for done in (first, again, other)]
    assert all(re.fullmatch(r"maxtext-9\.1\.0-[0-9a-f]{12}", name) for name in names), names
    assert names[0] == names[1] != names[2]  # equal trees share a pin; a different one never takes its name
    assert f"no git commit; named {names[2]}" in other.output
    assert "extra_key" in pins.load_pin(names[2]).keys and "extra_key" not in pins.load_pin(names[0]).keys
    with pytest.raises(InputError, match="unknown pin"):
        pins.canonical_pin("maxtext-9.1.0")


def test_an_undefined_key_names_the_pins_that_define_it_with_the_stores_listed_once(tmp_path, monkeypatch):
    listed: list[int] = []
    entries = store.entries

    def counted(*args, **kwargs):
        listed.append(1)
        return entries(*args, **kwargs)

    monkeypatch.setattr(store, "entries", counted)
    flags = FlagSource(" ".join(f"extra_key_{n}=1" for n in range(5)) + " moe_chunk_pipeline=true")
    found = Checker("maxtext-0.2.5").check(flags, fix=False).findings
    assert [f.rule for f in found] == ["FL004"] * 6
    assert "(a key at 22fa0c559, bbd0f6f10" in found[-1].message and "a key at" not in found[0].message
    assert len(listed) == 1  # once for the string's six undefined keys
    Checker("maxtext-0.2.5").check(flags, fix=False)
    assert len(listed) == 1  # the stores hold what they held: not listed again
    done = flaglint("schema", "import", str(make_tree(tmp_path / "maxtext", extra="  extra_key_0: int = 0\n")))
    assert done.exit_code == 0, done.output
    after = Checker("maxtext-0.2.5").check(flags, fix=False).findings
    # an import since: listed again, for the pins of a key and for the near names a misspelling has
    assert after[0].message == f"extra_key_0 is not a key of MaxText 0.2.5 (a key at {COMMIT})"
    assert after[1].message == f"extra_key_1 is not a key of MaxText 0.2.5; did you mean extra_key_0 (a key at {COMMIT})?"


# A tree's compile topology table, in the constructs of MaxText's utils/accelerator_to_spec_map.py:
# the names get_system_characteristics looks up, each with its devices per slice.
SPEC_MAP = """\
from dataclasses import dataclass

@dataclass
class SystemCharacteristics:
  platform: str
  topology_name: str
  chip_config_name: str
  chips_per_host_bounds: tuple
  devices_per_slice: int

UserFacingNameToSystemCharacteristics = {
    "v9z-12": SystemCharacteristics("tpu", "v9z:2x3", "megacore", (2, 3, 1), 6),
    "v9z-24": SystemCharacteristics("tpu", "v9z:2x6", "megacore", (2, 3, 1), devices_per_slice=12),
}

def get_system_characteristics(user_facing_name):
  return UserFacingNameToSystemCharacteristics.get(user_facing_name)
"""


def test_an_imported_tree_counts_devices_by_its_own_topology_table(tmp_path):
    tree = make_tree(tmp_path / "maxtext")
    (tree / "src" / "maxtext" / "utils").mkdir()
    (tree / "src" / "maxtext" / "utils" / "accelerator_to_spec_map.py").write_text(SPEC_MAP)
    assert flaglint("schema", "import", str(tree)).exit_code == 0
    pin = pins.load_pin(COMMIT)
    assert from_option("v9z-12", 2, pin.version, pin.topologies).devices == 12 and from_option("v9z-24", 1, pin.version, pin.topologies).devices == 12
    assert from_option("tpu7x:2x2x2", 1, pin.version, pin.topologies).devices == 16  # a slice is counted whatever the table
    checked = flaglint("check", "--pin", COMMIT, "--topology", "v9z-24", "num_chunks=1")
    assert checked.exit_code == 0, checked.output
    refused = flaglint("check", "--pin", COMMIT, "--topology", "v5p-8", "num_chunks=1")  # a name of the bundled releases only
    assert refused.exit_code == 2 and "--topology 'v5p-8': not a topology MaxText 9.1.0 knows" in refused.output
    read = Checker(COMMIT).config(FlagSource("compile_topology=v9z-24 compile_topology_num_slices=2"))[0]
    assert from_config(read).devices == 24


def test_an_entry_imported_without_a_topology_table_uses_its_releases(tmp_path):
    tree = make_tree(tmp_path / "maxtext", version="0.2.4")
    assert flaglint("schema", "import", str(tree)).exit_code == 0
    assert not (tmp_path / "xdg" / "flaglint" / "pins" / COMMIT / "topologies.json").exists()
    pin = pins.load_pin(COMMIT)
    assert from_option("v5p-8", 1, pin.version, pin.topologies).devices == 4  # maxtext 0.2.4's table


@pytest.mark.slow
def test_a_bundled_release_imported_again_is_that_release(tmp_path):
    wheel = REPO / ".cache" / "maxtext" / "maxtext-0.2.5-py3-none-any.whl"
    if not wheel.is_file():
        pytest.skip("the maxtext 0.2.5 wheel is not in .cache (tests/maxtext_env.py downloads it)")
    done = flaglint("schema", "import", str(wheel))
    assert done.exit_code == 0 and "maxtext-0.2.5: identical to the bundled pin; nothing to store" in done.output
    assert not (tmp_path / "xdg" / "flaglint" / "pins").exists()


def test_a_project_store_is_the_folder_pyproject_names(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.flaglint]\npin-store = "maxtext-pins"\n')
    tree = make_tree(tmp_path / "maxtext")
    assert flaglint("schema", "import", "--store", "project", str(tree)).exit_code == 0
    assert (tmp_path / "maxtext-pins" / COMMIT / "schema.json").is_file()
    store.project_store.cache_clear()
    assert "project store: maxtext 9.1.0" in pins.load_pin(COMMIT[:9]).origin
    assert "pin-store" in flaglint("config").output


def test_an_entry_an_earlier_flaglint_numbered_keeps_its_numbers_until_it_is_imported_again(tmp_path):
    make_tree(tmp_path / "maxtext")
    assert flaglint("schema", "import", str(tmp_path / "maxtext")).exit_code == 0
    rules = tmp_path / "xdg" / "flaglint" / "pins" / COMMIT / "rules" / "rules.yml"
    rules.write_text(rules.read_text().replace(CHUNKS_RULE, "MX0001"))  # as an import numbered it
    load_ruleset.cache_clear()
    done = flaglint("check", "--pin", COMMIT[:7], "--ignore", "MX0001", "num_chunks=2 mode=slow")
    assert done.exit_code == 0, done.output
    assert "old number" not in done.output  # not a bundled release's number: nothing to translate


def test_installed_is_the_package_find_spec_locates(tmp_path, monkeypatch):
    site = tmp_path / "site"
    make_tree(tmp_path / "tree", commit=None)
    (tmp_path / "tree" / "src").rename(site)
    monkeypatch.syspath_prepend(str(site))
    name = pins.canonical_pin("installed")
    assert name.startswith("installed-")
    assert "maxtext" not in sys.modules  # found, never imported
    assert [f.rule for f in Checker("installed").check(FlagSource("num_chunks=3"), fix=False).findings] == [CHUNKS_RULE]
    assert pins.canonical_pin("installed") == name  # imported once per version of its files


# ---- git refs, read without git ----


@pytest.mark.parametrize("layout", ["loose", "packed", "detached", "worktree"])
def test_the_commit_is_read_from_git_files(tmp_path, layout):
    repo = tmp_path / "repo"
    (repo / "src" / "maxtext").mkdir(parents=True)
    git = repo / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/dev\n")
    if layout == "loose":
        (git / "refs" / "heads" / "dev").write_text(COMMIT + "\n")
        (git / "packed-refs").write_text(f"{OTHER} refs/heads/dev\n")  # a loose ref wins over a packed one
    elif layout == "packed":
        (git / "packed-refs").write_text(f"# pack-refs with: peeled\n{OTHER} refs/heads/main\n{COMMIT} refs/heads/dev\n^{OTHER}\n")
    elif layout == "detached":
        (git / "HEAD").write_text(COMMIT + "\n")
    else:
        main_git = tmp_path / "main.git"
        (main_git / "worktrees" / "repo").mkdir(parents=True)
        (main_git / "refs" / "heads").mkdir(parents=True)
        (main_git / "refs" / "heads" / "dev").write_text(COMMIT + "\n")
        (main_git / "worktrees" / "repo" / "HEAD").write_text("ref: refs/heads/dev\n")
        (main_git / "worktrees" / "repo" / "commondir").write_text("../..\n")
        for path in sorted(git.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        git.rmdir()
        git.write_text(f"gitdir: {main_git / 'worktrees' / 'repo'}\n")
    assert checkout_commit(repo / "src" / "maxtext") == COMMIT


def test_no_commit_outside_a_checkout(tmp_path):
    (tmp_path / "a" / "b" / "c" / "maxtext").mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text(COMMIT)
    assert checkout_commit(tmp_path / "a" / "b" / "c" / "maxtext") is None


# ---- requirements files ----


def test_requirements_resolve_to_a_release_a_store_pin_or_the_import_command(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("jax\nmaxtext==0.2.4\n")
    assert pins.pin_from_requirements(str(requirements)) == "maxtext-0.2.4"

    requirements.write_text("maxtext==9.9.9\n")
    with pytest.raises(InputError, match=r"requirements.txt:1: maxtext==9.9.9 is neither bundled nor imported; "
                       r"import it: `pip download .* maxtext==9.9.9 .* flaglint schema import "):
        pins.pin_from_requirements(str(requirements))

    requirements.write_text(f"maxtext @ git+https://github.com/someone/maxtext.git@{COMMIT[:10]}\n")
    with pytest.raises(InputError, match=r"not imported and no overlay describes it; import a checkout of it: "
                       r"`flaglint schema import /path/to/maxtext`"):
        pins.pin_from_requirements(str(requirements))
    make_tree(tmp_path / "maxtext")
    assert flaglint("schema", "import", str(tmp_path / "maxtext")).exit_code == 0
    assert pins.pin_from_requirements(str(requirements)) == COMMIT

    requirements.write_text("maxtext @ git+https://github.com/AI-Hypercomputer/maxtext.git@bbd0f6f10aa\n")
    assert pins.pin_from_requirements(str(requirements)) == "bbd0f6f10"  # no import: the overlay


# ---- pins diff ----


def test_pins_diff_lists_keys_types_defaults_and_validators(tmp_path):
    make_tree(tmp_path / "old", version="9.1.0")
    make_tree(tmp_path / "new", version="9.2.0", commit=OTHER, extra="  fused: bool = True\n",
              more_checks="    if self.fused and self.mode == Mode.SLOW:\n      raise ValueError(\"fused needs mode=fast.\")\n")
    text = (tmp_path / "new" / "src" / "maxtext" / "configs" / "types.py").read_text()
    text = text.replace("num_chunks: int = Field(1, gt=0)", "num_chunks: int | None = Field(1, gt=0)")
    (tmp_path / "new" / "src" / "maxtext" / "configs" / "types.py").write_text(text)
    (tmp_path / "new" / "src" / "maxtext" / "configs" / "base.yml").write_text("num_chunks: 1\nuse_ring: true\nmode: fast\n")
    for tree in ("old", "new"):
        assert flaglint("schema", "import", str(tmp_path / tree)).exit_code == 0
    done = flaglint("pins", "diff", COMMIT[:7], OTHER[:7])
    assert done.exit_code == 0, done.output
    # the counts first, then each list as a table; the check the two trees share keeps its id
    assert done.output.splitlines() == [
        f"{COMMIT} -> {OTHER}",
        "",
        "change              count",
        "keys added          1",
        "keys removed        0",
        "keys retyped        1",
        "defaults changed    1",
        "validators added    1",
        "validators changed  0",
        "validators removed  0",
        "",
        "keys added:",
        "  key",
        "  fused",
        "",
        "keys retyped:",
        "  key         field     change",
        "  num_chunks  nullable  false -> true",
        "",
        "defaults changed:",
        "  key       change",
        "  use_ring  false -> true",
        "",
        "validators added:",
        "  id       function                    title",
        "  MXSTVJK  MaxTextConfig.check_chunks  fused needs mode=fast",
    ]  # fmt: skip
    data = json.loads(flaglint("pins", "diff", COMMIT[:7], OTHER[:7], "--format", "json").output)
    assert data["counts"]["keys_retyped"] == 1 and data["keys_retyped"] == [
        {"key": "num_chunks", "changes": [{"field": "nullable", "from": False, "to": True}]}]
    assert [v["id"] for v in data["validators_added"]] == ["MXSTVJK"] and data["validators_removed"] == []


# ---- bad input: one line, exit 2 ----


def test_two_imports_claiming_one_name(tmp_path):
    make_tree(tmp_path / "a")
    make_tree(tmp_path / "b", extra="  extra_key: int = 0\n")
    assert flaglint("schema", "import", str(tmp_path / "a")).exit_code == 0
    assert flaglint("schema", "import", str(tmp_path / "a")).exit_code == 0  # the same import again: refreshed
    second = flaglint("schema", "import", str(tmp_path / "b"))
    assert second.exit_code == 2
    assert f"two imports claim the pin {COMMIT}" in second.output and "--replace" in second.output
    assert len(second.output.strip().splitlines()) == 1
    assert flaglint("schema", "import", "--replace", str(tmp_path / "b")).exit_code == 0
    assert "extra_key" in pins.load_pin(COMMIT).keys
    renamed = flaglint("schema", "import", "--name", "maxtext-0.2.5", str(tmp_path / "a"))
    assert renamed.exit_code == 2 and "maxtext-0.2.5 is a bundled pin and this import differs" in renamed.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["schema", "import", "{tmp}"], "not a MaxText tree"),
        (["schema", "import", "{tmp}/old"], "without MaxText/configs/base.yml"),
        (["check", "--pin", "nothing-here", "x=1"], "unknown pin 'nothing-here'; known pins: maxtext-0.1.0, maxtext-0.2.0"),
        (["check", "--pin", "installed", "x=1"], "--pin installed: no maxtext package"),
        (["pins", "diff", "maxtext-0.2.5", "nope"], "unknown pin 'nope'"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, args, message):
    (tmp_path / "old" / "MaxText").mkdir(parents=True)
    (tmp_path / "old" / "MaxText" / "pyconfig.py").write_text("")
    done = flaglint(*(a.format(tmp=tmp_path) for a in args))
    assert done.exit_code == 2, done.output
    assert message in done.output and len(done.output.strip().splitlines()) == 1, done.output


def test_a_half_written_entry_is_one_line(tmp_path):
    make_tree(tmp_path / "maxtext")
    assert flaglint("schema", "import", str(tmp_path / "maxtext")).exit_code == 0
    entry = tmp_path / "xdg" / "flaglint" / "pins" / COMMIT
    (entry / "pin.json").unlink()
    done = flaglint("check", "--pin", COMMIT[:8], "x=1")
    assert done.exit_code == 2 and "half-written or damaged pin store entry" in done.output
    (entry / "pin.json").write_text("{")
    assert "half-written or damaged" in flaglint("pins").output
    # a check at another pin still runs, and still names the pins that define an unknown key
    other = flaglint("check", "--pin", "maxtext-0.2.0", "num_moe_token_chunks=2")
    assert other.exit_code == 1 and "(a key at 0.2.4, 0.2.5" in other.output


@pytest.mark.parametrize("schema, problem", [
    ("[]", "the file: Input should be a valid dictionary"),
    ('{"keys": {}, "source": "x"}', "version: Field required"),
    ('{"version": 1, "keys": {}, "source": "x"}', "version: Input should be a valid string"),
    ('{"version": "0.2.5", "source": "x", "keys": {"steps": 1}}', "keys.steps: Input should be a valid dictionary"),
])
def test_a_damaged_schema_file_is_one_line(tmp_path, schema, problem):
    make_tree(tmp_path / "maxtext")
    assert flaglint("schema", "import", str(tmp_path / "maxtext")).exit_code == 0
    (tmp_path / "xdg" / "flaglint" / "pins" / COMMIT / "schema.json").write_text(schema)
    done = flaglint("check", "--pin", COMMIT[:8], "x=1")
    assert done.exit_code == 2 and len(done.output.strip().splitlines()) == 1, done.output
    assert "damaged pin store entry" in done.output and problem in done.output, done.output


@pytest.mark.parametrize("index", ["[]", '{"version": "0.2.9", "files": {"base.yml": 1}}', "{"])
def test_a_damaged_index_of_configs_is_one_line(tmp_path, index):
    make_tree(tmp_path / "maxtext")
    assert flaglint("schema", "import", str(tmp_path / "maxtext")).exit_code == 0
    (tmp_path / "xdg" / "flaglint" / "pins" / COMMIT / "configs.json").write_text(index)
    done = flaglint("check", "--pin", COMMIT[:8], "x=1")
    assert done.exit_code == 2 and len(done.output.strip().splitlines()) == 1, done.output
    assert "configs.json: damaged index of configs" in done.output


def test_an_interrupted_write_leaves_no_entry(tmp_path):
    root = tmp_path / "store"

    def fail(folder: Path) -> None:
        (folder / "schema.json").write_text("{}")
        raise InputError("interrupted")

    with pytest.raises(InputError, match="interrupted"):
        store.write_entry(root, {"name": "x"}, fail, replace=True)
    assert list(root.iterdir()) == []


# ---- cold start ----


def test_checking_at_one_pin_reads_only_that_pins_schema():
    code = textwrap.dedent("""
        import json, sys
        from flaglint.frontends.checker import Checker
        from flaglint.read.flags import FlagSource
        from flaglint.pins import pins
        Checker("maxtext-0.2.4").check(FlagSource("num_moe_token_chunks=2"), fix=False)
        print(json.dumps([pins._released.cache_info().currsize, "flaglint.pins.store" in sys.modules]))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert json.loads(done.stdout) == [1, False], done.stderr
