"""Break the trainer core on purpose, one way at a time, and show that a test fails for each.

    python tests/trainer/mutants.py [--jobs 2] [NAME ...]

Each mutant replaces one piece of text in one module of a copy of the package, and the fast
trainer tests run against that copy (stopping at the first failure). Prints the test that killed
each mutant; exits 1 if one survives or no longer applies. test_mutants.py runs them all (marked
slow).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_S = 900
TESTS = {"head": "test_head.py", "settings": "test_settings.py", "packing": "test_packing.py", "smoke": "test_smoke.py"}

# name: (module, text, replacement)
MUTANTS = {
    "cotangent sign flipped": ("head", "* ((-ct) / exp_sum)", "* (ct / exp_sum)"),
    "backward temperature dropped": ("head", "return logits_ct / temperature", "return logits_ct"),
    "forward temperature dropped": ("head", "return logits / temperature", "return logits"),
    "cotangent read from the first chunk": (
        "head", "(hidden_chunks, target_chunks, row_max, exp_sum, logps_ct),",
        "(hidden_chunks, target_chunks, row_max, exp_sum, jnp.broadcast_to(logps_ct[:1], logps_ct.shape)),"),
    "max and exp-sum swapped": (
        "head", "return outs, (hidden_chunks, weight, target_chunks, row_max, exp_sum)",
        "return outs, (hidden_chunks, weight, target_chunks, exp_sum, row_max)"),
    "max dropped from the shift": ("head", "shifted = logits - row_max[:, None]", "shifted = logits"),
    "entropy sign flipped": ("head", "log_sum - weighted / exp_sum", "weighted / exp_sum - log_sum"),
    "entropy cotangent sent to the one-pass backward": (
        "head", "if with_entropy and not isinstance(cts[1], SymbolicZero):", "if False:"),
    "barrier removed": ("head", "logits_ct, hidden, ordered_weight = lax.optimization_barrier((logits_ct, hidden, weight))", "ordered_weight = weight"),
    "weight copy no longer ordered after the cotangent": (
        "head", "ordered_weight = _read_after(ordered_weight, logits_ct)", "pass"),
    "wrap of negative ids removed": ("head", "jnp.where(targets < 0, targets + vocab, targets)", "targets"),
    "vocabulary bound off by one": ("head", "(wrapped < vocab)", "(wrapped <= vocab)"),
    "ids outside the vocabulary scored": (
        "head", "jnp.where(valid, picked - log_sum, jnp.nan)", "picked - log_sum"),
    "validity mask dropped from the cotangent": (
        "head", "ct = jnp.where(valid, logps_ct, jnp.zeros((), logps_ct.dtype))", "ct = logps_ct"),
    "entropy's -inf guard dropped": ("head", "exps * jnp.where(exps > 0, shifted, zero)", "exps * shifted"),
    "entropy lanes not summed": (
        "head", "jnp.sum(first, axis=-1), jnp.sum(second, axis=-1)", "first[:, 0], second[:, 0]"),
    "weight gradient summed in forward order": ("head", "reverse=True,", "reverse=False,"),
    "fused parsed loosely": ("settings", 'if value == "fused":', 'if value.strip().lower() == "fused":'),
    "off values case-sensitive": ("settings", "if value.lower() in HEAD_OFF_VALUES:", "if value in HEAD_OFF_VALUES:"),
    "fused parsed as local": ("settings", '''    if value == "fused":
        return "fused"''', '''    if value == "fused":
        return "local"'''),
    "fused option ignored": ("settings", 'return "fused" if head_mode == "fused" else "local"', 'return "local"'),
    "pad_align multiple check loosened": ("settings", "or pad_align % segment_align_multiple != 0", ""),
    "pad_align check applied to end": ("settings", 'if pad_position == "start" and (\n        not _is_int', "if (\n        not _is_int"),
    "row-length refusal off by one": ("settings", "pad_align >= row_length", "pad_align > row_length"),
    "unpacked refusal removed": ("settings", 'if pad_position == "start" and not packed:', "if False:"),
    "end pad_align refusal removed": ("settings", 'if pad_position == "end" and pad_align != DEFAULT_PAD_ALIGN:', "if False:"),
    "routing left unshifted": (
        "packing", "array[row] = np.roll(array[row], shift, axis=0)",
        "array[row] = np.roll(array[row], shift, axis=0) if array.ndim == 2 else array[row]"),
    "shift unrounded": ("packing", "_shift_row(out, r, trailing // pad_align * pad_align)", "_shift_row(out, r, trailing)"),
    "shift off by one": (
        "packing", "trailing = row_length - (last_start + items[last_index].length)",
        "trailing = row_length - (last_start + items[last_index].length) - 1"),
    "shift rounded up": (
        "packing", "_shift_row(out, r, trailing // pad_align * pad_align)",
        "_shift_row(out, r, -(-trailing // pad_align) * pad_align)"),
    "segment ids widened to int64": ("packing", "segment_ids=np.zeros(shape, np.int32)", "segment_ids=np.zeros(shape, np.int64)"),
    "absolute positions": ("packing", "np.arange(prompt + completion)", "np.arange(start, start + prompt + completion)"),
    "start as the default": ("packing", "pad_position: str = DEFAULT_PAD_POSITION,", 'pad_position: str = "start",'),
    "segment alignment ignored": ("packing", "start = _align_up(end, align)", "start = end"),
    "advantages on masked tokens": (
        "packing", "np.where(np.asarray(item.completion_mask) != 0, item.advantage, 0.0)", "item.advantage"),
    "packer check removed": ("packing", "    check_pad_settings(pad_position, pad_align, segment_align_multiple)\n", ""),
    "smoke never checks that rows move": ("smoke", "if not moved:", "if False:"),
}


# The test that killed each mutant when last run, tried alone before the files: a mutant it still
# kills costs that one test. One that no longer names a test, or that passes, costs nothing more than
# the run of the files after it.
KILLED_BY = {
    'cotangent sign flipped': 'test_head.py::test_fused_gradients_match_local[37-16-100-8]',
    'backward temperature dropped': 'test_head.py::test_gradient_is_that_of_the_definition[fused]',
    'forward temperature dropped': 'test_head.py::test_entropy_is_the_softmax_entropy',
    'cotangent read from the first chunk': 'test_head.py::test_fused_gradients_match_local[37-16-100-8]',
    'max and exp-sum swapped': 'test_head.py::test_fused_gradients_match_local[37-16-100-8]',
    'max dropped from the shift': 'test_head.py::test_fused_scores_match_local[37-16-100-8-1.0]',
    'entropy sign flipped': 'test_head.py::test_fused_scores_match_local[37-16-100-8-1.0]',
    'entropy cotangent sent to the one-pass backward': 'test_head.py::test_fused_gradients_as_accurate_as_local[0.5-37-16-100-8-1.0]',
    'barrier removed': 'test_head.py::test_fused_log_prob_backward_has_no_gather_scatter_or_sort_and_one_barrier',
    'weight copy no longer ordered after the cotangent': 'test_head.py::test_fused_one_chunk_temporaries_at_most_two_thirds_of_local[bfloat16]',
    'wrap of negative ids removed': 'test_head.py::test_edge_case_scores_match_local',
    'vocabulary bound off by one': 'test_head.py::test_edge_case_scores_match_local',
    'ids outside the vocabulary scored': 'test_head.py::test_edge_case_scores_match_local',
    'validity mask dropped from the cotangent': 'test_head.py::test_edge_case_cotangent_matches_autodiff[1.0]',
    "entropy's -inf guard dropped": 'test_head.py::test_edge_case_scores_match_local',
    'entropy lanes not summed': 'test_head.py::test_fused_scores_match_local[37-16-100-8-1.0]',
    'weight gradient summed in forward order': 'test_head.py::test_fused_gradients_match_local[37-16-100-8]',
    'fused parsed loosely': 'test_settings.py::test_near_misses_raise[Fused]',
    'off values case-sensitive': 'test_settings.py::test_head_modes[FALSE-off]',
    'fused parsed as local': 'test_settings.py::test_head_modes[fused-fused]',
    'fused option ignored': 'test_settings.py::test_unset_zero_and_local_run_the_local_program',
    'pad_align multiple check loosened': 'test_settings.py::test_pad_checks',
    'pad_align check applied to end': 'test_settings.py::test_pad_checks',
    'row-length refusal off by one': 'test_settings.py::test_assembler_refusals',
    'unpacked refusal removed': 'test_settings.py::test_assembler_refusals',
    'end pad_align refusal removed': 'test_settings.py::test_assembler_refusals',
    'routing left unshifted': 'test_packing.py::test_start_row_by_hand',
    'shift unrounded': 'test_packing.py::test_start_row_by_hand',
    'shift off by one': 'test_packing.py::test_start_is_end_rotated_and_every_token_keeps_its_fields',
    'shift rounded up': 'test_packing.py::test_start_row_by_hand',
    'segment ids widened to int64': 'test_packing.py::test_end_row_by_hand',
    'absolute positions': 'test_packing.py::test_end_row_by_hand',
    'start as the default': 'test_packing.py::test_end_row_by_hand',
    'segment alignment ignored': 'test_packing.py::test_end_row_by_hand',
    'advantages on masked tokens': 'test_packing.py::test_end_row_by_hand',
    'packer check removed': 'test_packing.py::test_invalid_settings_raise[kwargs0]',
    'smoke never checks that rows move': 'test_smoke.py::test_bad_settings_give_the_reason',
}

UNMUTATED = "(no mutant)"


def run_mutant(name: str) -> tuple[str, str | None]:
    """The test that killed mutant `name` (None if it survived); raises if its text is gone.
    UNMUTATED runs the same tests on an unchanged copy: they must pass there (None)."""
    module, text, replacement = MUTANTS[name] if name != UNMUTATED else ("head", "", "")
    source = (REPO / "flaglint" / "trainer" / f"{module}.py").read_text()
    if name != UNMUTATED and source.count(text) != 1:
        raise LookupError(f"mutant {name!r}: its text occurs {source.count(text)} times in {module}.py")
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        root = Path(tmp)
        shutil.copytree(REPO / "flaglint", root / "flaglint", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "tests" / "trainer", root / "tests",
                        ignore=shutil.ignore_patterns("__pycache__", "mutants.py", "test_mutants.py"))
        for shared in ("conftest.py", "commandline.py"):  # the hypothesis profiles
            shutil.copy(REPO / "tests" / shared, root / "tests" / shared)
        for data in ("examples", "rules", "schemas"):  # flaglint.core.data reads rules/ and schemas/ beside the package
            shutil.copytree(REPO / data, root / data)
        if name != UNMUTATED:
            (root / "flaglint" / "trainer" / f"{module}.py").write_text(source.replace(text, replacement))
        # The mutated module's own tests first, alone: most mutants fail there, before the other
        # files (and JAX, for a mutant of the packer or the settings) are even imported.
        own = [TESTS[module]]
        stages = [list(TESTS.values())] if name == UNMUTATED else [[KILLED_BY[name]], own, [f for f in TESTS.values() if f not in own]]
        env = {**os.environ, "PYTHONPATH": str(root), "JAX_PLATFORMS": "cpu"}
        for files in stages:
            try:
                proc = subprocess.run(
                    [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow",
                     "--rootdir", str(root), *(str(root / "tests" / f) for f in files)],
                    cwd=root, env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
                )
            except subprocess.TimeoutExpired:  # a hang fails the suite as surely as a failing test
                return name, f"the tests ran past {TIMEOUT_S} s"
            if proc.returncode not in (0, 4, 5):  # 4, 5: the test named no longer exists
                break
        else:
            return name, None
        if name == UNMUTATED:
            raise RuntimeError(f"the trainer tests fail on an unchanged copy:\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
        failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, re.M)
        if not failed and proc.returncode in (3, 4, 5):  # pytest's internal or usage error, or no test run: no kill
            raise RuntimeError(f"mutant {name!r}: pytest exit {proc.returncode}:\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
        return name, failed[0] if failed else f"pytest exit {proc.returncode}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    args = parser.parse_args()
    names = args.names or list(MUTANTS)
    run_mutant(UNMUTATED)
    survivors = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for name, killer in pool.map(run_mutant, names):
            print(f"{'killed' if killer else 'SURVIVED':8}  {name:48}  {killer or ''}", flush=True)
            if killer is None:
                survivors.append(name)
    print(f"{len(names) - len(survivors)}/{len(names)} mutants killed")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
