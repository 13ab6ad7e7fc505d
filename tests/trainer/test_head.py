"""The fused head against the local one: values, gradients, edge cases and program shape."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from jax.test_util import check_grads  # noqa: E402

from flaglint.trainer import head  # noqa: E402
from flaglint.trainer.head import per_token_logps  # noqa: E402


def ulps(a, b, floor=0.0):
    """Distance in units of the last place of the larger magnitude (at least `floor`);
    NaN and inf must coincide."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    assert np.array_equal(np.isnan(a), np.isnan(b)), "NaN in different places"
    finite = np.isfinite(a) & np.isfinite(b)
    assert np.array_equal(a[~finite & ~np.isnan(a)], b[~finite & ~np.isnan(b)]), "infinities differ"
    scale = np.spacing(np.maximum(np.maximum(np.abs(a[finite]), np.abs(b[finite])), np.float32(floor)))
    return np.abs(a[finite] - b[finite]) / scale if finite.any() else np.zeros(1)


def entropy_ulps(a, b):
    """The fused entropy is log(exp-sum) minus a weighted mean, the local one a sum of p log p:
    both round at the scale of a nat, so entropies below 1 are compared in ulps of 1."""
    return ulps(a, b, floor=1.0)


def make_inputs(seed, n, hidden, vocab, dtype=jnp.float32, scale=1.0):
    keys = jax.random.split(jax.random.PRNGKey(seed), 3)
    h = (jax.random.normal(keys[0], (n, hidden)) * scale).astype(dtype)
    w = (jax.random.normal(keys[1], (hidden, vocab)) / np.sqrt(hidden)).astype(dtype)
    t = jax.random.randint(keys[2], (n,), 0, vocab)
    return h, w, t


# XLA:CPU (jaxlib 0.10) hands some dots, sums and the elementwise operations around them to its
# YNNPACK library, whose exp rounds differently from XLA's own loops, and which operations go
# there depends on the rest of the program: local's forward exponentials and the fused backward's
# recomputed ones can come from different code. Compiled without those fusions, each program is
# its operations, so the bounds are checked there; under the default compiler the
# difference that remains is measured separately (test_fused_close_to_local_under_default_compiler).
SAME_KERNELS = {"xla_cpu_experimental_ynn_fusion_type": ""}


_compiled: dict = {}


def run(program, key, args, compiler_options=None):
    """program(*args), compiled once per `key` (what the program closes over), argument shapes and
    compiler options: the examples of one shape bucket share their executables."""
    signature = (key, jnp.result_type(float), tuple((a.shape, a.dtype) for a in args),
                 tuple(sorted((compiler_options or {}).items())))
    if signature not in _compiled:
        lowered = jax.jit(program).lower(*args)
        try:
            _compiled[signature] = lowered.compile(compiler_options)
        except Exception as error:  # a jaxlib without YNNPACK fusions has no such option, and no such fusions
            if "No such compile option" not in str(error):
                raise
            _compiled[signature] = lowered.compile()
    return _compiled[signature](*args)


def scores(mode, h, w, t, chunk, temperature, entropy=True, compiler_options=None):
    def program(h, w, t):
        return per_token_logps(h, w, t, mode=mode, chunk_size=chunk, temperature=temperature, return_entropy=entropy)

    return run(program, ("scores", mode, chunk, temperature, entropy), (h, w, t), compiler_options)


def grads(mode, h, w, t, chunk, temperature, entropy_weight, compiler_options=None):
    """Gradients of a GRPO-shaped loss (per-token weights on the log-probs), plus entropy if weighted."""

    def loss(h, w, t):
        token_weights = jnp.linspace(-1.0, 2.0, h.shape[0])
        logps, entropy = per_token_logps(
            h, w, t, mode=mode, chunk_size=chunk, temperature=temperature, return_entropy=True)
        total = jnp.sum(token_weights * logps)
        return total + entropy_weight * jnp.sum(entropy) if entropy_weight else total

    return run(jax.grad(loss, argnums=(0, 1)), ("grads", mode, chunk, temperature, entropy_weight), (h, w, t),
               compiler_options)


def max_rel_diff(expected, actual):
    expected, actual = np.asarray(expected, np.float64), np.asarray(actual, np.float64)
    scale = np.max(np.abs(expected))
    return np.max(np.abs(expected - actual)) / scale if scale > 0 else np.max(np.abs(actual))


def assert_as_accurate_as_local(h, w, t, chunk, temperature, entropy_weight, slack=3e-8, slack_ulps=0):
    """Against float64 truth, the fused gradients are no further off than the local ones, up to
    3e-8 of the largest entry (or `slack_ulps` ulp of it)."""
    local = grads("local", h, w, t, chunk, temperature, entropy_weight)
    fused = grads("fused", h, w, t, chunk, temperature, entropy_weight)
    with jax.enable_x64(True):
        truth = grads("local", jnp.asarray(h, jnp.float64), jnp.asarray(w, jnp.float64), t, chunk,
                      temperature, entropy_weight)
        truth = [np.asarray(x) for x in truth]
    for tr, lo, fu in zip(truth, local, fused):
        largest = np.max(np.abs(tr))
        allowed = max(slack, slack_ulps * float(np.spacing(np.float32(largest))) / largest) if largest else slack
        assert max_rel_diff(tr, fu) <= max_rel_diff(tr, lo) + allowed


CASES = [
    # n, hidden, vocab, chunk, temperature
    (37, 16, 100, 8, 1.0),  # chunks that do not divide n
    (37, 16, 100, 8, 0.7),
    (24, 8, 64, 64, 1.0),  # one chunk for all of n
    (30, 32, 512, 10, 0.7),
    (40, 32, 4096, 16, 1.0),
    (64, 32, 50257, 64, 1.0),  # GPT-2's vocabulary, not a multiple of the entropy sum's lanes
]
# The fast suite compiles the first case; -m slow every one.
SLOW_BEYOND_FIRST = [CASES[0], *(pytest.param(*case, marks=pytest.mark.slow) for case in CASES[1:])]


@pytest.mark.parametrize("n,hidden,vocab,chunk,temperature", SLOW_BEYOND_FIRST)
def test_fused_scores_match_local(n, hidden, vocab, chunk, temperature):
    h, w, t = make_inputs(n, n, hidden, vocab, scale=3.0)
    local = scores("local", h, w, t, chunk, temperature)
    fused = scores("fused", h, w, t, chunk, temperature)
    assert ulps(local[0], fused[0]).max() <= 2
    assert entropy_ulps(local[1], fused[1]).max() <= 8


@pytest.mark.parametrize("n,hidden,vocab,chunk", [(37, 16, 100, 8), (24, 8, 64, 64)])
def test_fused_gradients_match_local(n, hidden, vocab, chunk):
    """Only the log-probs differentiated (as in GRPO): within 3e-8 of the largest entry."""
    h, w, t = make_inputs(n + 1, n, hidden, vocab)
    for expected, actual in zip(grads("local", h, w, t, chunk, 1.0, 0.0), grads("fused", h, w, t, chunk, 1.0, 0.0)):
        assert max_rel_diff(expected, actual) <= 3e-8


@pytest.mark.parametrize("n,hidden,vocab,chunk,temperature", SLOW_BEYOND_FIRST)
@pytest.mark.parametrize("entropy_weight", [0.0, 0.5])
def test_fused_gradients_as_accurate_as_local(n, hidden, vocab, chunk, temperature, entropy_weight):
    """Peaked logits and temperatures other than 1, with and without the entropy differentiated."""
    h, w, t = make_inputs(n + 2, n, hidden, vocab, scale=3.0)
    assert_as_accurate_as_local(h, w, t, chunk, temperature, entropy_weight)


def random_case(n, vocab, seed):
    """Random inputs at hidden 8, with targets also outside the vocabulary and negative."""
    h, w, _ = make_inputs(seed, n, 8, vocab, scale=2.0)
    t = jax.random.randint(jax.random.PRNGKey(seed + 1), (n,), -vocab - 2, vocab + 2)
    return h, w, t


random_shapes = dict(n=st.integers(1, 40), vocab=st.integers(2, 300), seed=st.integers(0, 2**16))


def check_same_kernels(n, vocab, chunk, temperature, seed):
    """The issue's bounds, with both programs compiled to their own operations (SAME_KERNELS).

    The temperatures have exact reciprocals: XLA scales by 1/T, and where that product is
    rounded, or contracted with the max's subtraction into one fused multiply-add, depends on
    the fusion around it, so at T=0.7 or 1.3 the recomputed logits can differ from local's in
    the last bit (measured: up to 1.4e-7 of the largest gradient entry, none at 0.5, 1 or 2).
    Chunks hold at least 2 tokens: with one, XLA:CPU turns the weight gradient's dot into an
    elementwise product and fuses the cotangent into it (its pipeline expands the optimization
    barrier before fusing), contracting a multiply-add there that the hidden gradient's copy
    rounds twice, so the two gradients read cotangents a last bit apart (measured: 1.1e-7).
    """
    h, w, t = random_case(n, vocab, seed)
    local = scores("local", h, w, t, chunk, temperature, compiler_options=SAME_KERNELS)
    fused = scores("fused", h, w, t, chunk, temperature, compiler_options=SAME_KERNELS)
    assert ulps(local[0], fused[0]).max() <= 2
    assert entropy_ulps(local[1], fused[1]).max() <= 8
    for expected, actual in zip(grads("local", h, w, t, chunk, temperature, 0.0, SAME_KERNELS),
                                grads("fused", h, w, t, chunk, temperature, 0.0, SAME_KERNELS)):
        assert max_rel_diff(expected, actual) <= 3e-8


def check_default_compiler(n, vocab, chunk, temperature, seed):
    """As the trainer compiles it: log-probs and entropy as above; the gradients differ where
    YNNPACK's and XLA's exp, or the temperature's rounding, differ (see SAME_KERNELS), by at
    most 2 ulp of the largest entry beyond local's own error against float64."""
    h, w, t = random_case(n, vocab, seed)
    local = scores("local", h, w, t, chunk, temperature)
    fused = scores("fused", h, w, t, chunk, temperature)
    assert ulps(local[0], fused[0]).max() <= 2
    assert entropy_ulps(local[1], fused[1]).max() <= 8
    assert_as_accurate_as_local(h, w, t, chunk, temperature, 0.0, slack_ulps=2)


# The fast suite draws the data afresh but the shapes from fixed buckets (n, vocab, chunk,
# temperature), so it compiles a few programs and runs them many times: chunks of the minimum
# size, chunks that do not divide n, one chunk for all of n, the smallest vocabulary; a single
# token (a chunk of one, whatever chunk_size says) only under the default compiler's bounds.
SAME_KERNEL_BUCKETS = [(2, 2, 2, 1.0), (37, 300, 8, 0.5), (40, 129, 48, 2.0), (23, 67, 2, 1.0)]
DEFAULT_COMPILER_BUCKETS = [(23, 67, 1, 0.7), (40, 300, 16, 1.3), (5, 2, 48, 1.0), (1, 2, 2, 1.0)]
seeds = st.integers(0, 2**16)


# Derandomized in every profile, as the random-shape tests below: the bounds are measured ones, and
# CI must not pass or fail by the draw (seed 282 in the (40, 300, 16, 1.3) bucket exceeds the
# default compiler's bound by half an ulp: a finding for the head, not a flake to retry).
@pytest.mark.slow
@settings(derandomize=True)
@given(bucket=st.sampled_from(SAME_KERNEL_BUCKETS), seed=seeds)
def test_fused_matches_local_in_shape_buckets(bucket, seed):
    check_same_kernels(*bucket, seed)


@pytest.mark.slow
@settings(derandomize=True)
@given(bucket=st.sampled_from(DEFAULT_COMPILER_BUCKETS), seed=seeds)
def test_fused_close_to_local_under_default_compiler_in_shape_buckets(bucket, seed):
    check_default_compiler(*bucket, seed)


# Derandomized: the same shapes on every run, so CI is as reproducible as the cases above.
@pytest.mark.slow
@settings(max_examples=30, deadline=None, derandomize=True)
@given(chunk=st.integers(2, 48), temperature=st.sampled_from([1.0, 0.5, 2.0]), **random_shapes)
def test_fused_matches_local_on_random_shapes(n, vocab, chunk, temperature, seed):
    check_same_kernels(n, vocab, chunk, temperature, seed)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, derandomize=True)
@given(chunk=st.integers(1, 48), temperature=st.sampled_from([1.0, 0.7, 1.3]), **random_shapes)
def test_fused_close_to_local_under_default_compiler(n, vocab, chunk, temperature, seed):
    check_default_compiler(n, vocab, chunk, temperature, seed)


def test_log_probs_alone_and_forward_only():
    h, w, t = make_inputs(3, 20, 8, 50)
    local = scores("local", h, w, t, 7, 1.0, entropy=False)
    fused = scores("fused", h, w, t, 7, 1.0, entropy=False)
    assert local.shape == fused.shape == (20,)
    assert ulps(local, fused).max() <= 2
    reference = jax.nn.log_softmax(h @ w, axis=-1)[jnp.arange(20), t]
    np.testing.assert_allclose(fused, reference, rtol=1e-5, atol=1e-5)


def test_entropy_is_the_softmax_entropy():
    h, w, t = make_inputs(4, 12, 8, 40, scale=2.0)
    _, entropy = scores("fused", h, w, t, 5, 0.7)
    p = jax.nn.softmax((h @ w) / 0.7, axis=-1)
    np.testing.assert_allclose(entropy, -jnp.sum(p * jnp.log(p), axis=-1), rtol=1e-5)


@pytest.mark.parametrize("mode", [pytest.param("local", marks=pytest.mark.slow), "fused"])  # the reference's own: -m slow
def test_gradient_is_that_of_the_definition(mode):
    """Both programs differentiate log softmax(h w / T)[target], checked against plain autodiff."""
    h, w, t = make_inputs(5, 11, 6, 30)

    def reference(h, w):
        return jnp.sum(jnp.arange(11.0) * jax.nn.log_softmax(h @ w / 0.7, axis=-1)[jnp.arange(11), t])

    def ours(h, w):
        return jnp.sum(jnp.arange(11.0) * per_token_logps(h, w, t, mode=mode, chunk_size=4, temperature=0.7))

    for e, a in zip(jax.grad(reference, (0, 1))(h, w), jax.grad(ours, (0, 1))(h, w)):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", [pytest.param("local", marks=pytest.mark.slow), "fused"])  # the reference's own: -m slow
@pytest.mark.parametrize("entropy_weight", [0.0, pytest.param(0.3, marks=pytest.mark.slow)])
def test_check_grads_float64(mode, entropy_weight):
    with jax.enable_x64(True):
        h, w, t = make_inputs(6, 9, 5, 17, dtype=jnp.float64)

        def loss(h, w):
            logps, entropy = per_token_logps(
                h, w, t, mode=mode, chunk_size=4, temperature=0.8, return_entropy=True)
            return jnp.sum(jnp.cos(logps)) + entropy_weight * jnp.sum(entropy**2)

        check_grads(loss, (h, w), order=1, modes=["rev"], atol=1e-7, rtol=1e-7)


@pytest.mark.slow
def test_bf16_against_f32_reference():
    """bf16 inputs: |f32 reference - fused bf16| <= |f32 reference - local bf16| + 1e-2 (CCE-style)."""
    h, w, t = make_inputs(7, 64, 32, 1000, dtype=jnp.bfloat16, scale=2.0)
    h32, w32 = h.astype(jnp.float32), w.astype(jnp.float32)
    reference = scores("local", h32, w32, t, 16, 1.0)
    local = scores("local", h, w, t, 16, 1.0)
    fused = scores("fused", h, w, t, 16, 1.0)
    for ref, naive, ours in zip(reference, local, fused):
        assert np.all(np.abs(ref - ours) <= np.abs(ref - naive) + 1e-2)
    ref_grads = grads("local", h32, w32, t, 16, 1.0, 0.0)
    naive_grads = grads("local", h, w, t, 16, 1.0, 0.0)
    fused_grads = grads("fused", h, w, t, 16, 1.0, 0.0)
    for ref, naive, ours in zip(ref_grads, naive_grads, fused_grads):
        ref, naive, ours = (np.asarray(x, np.float32) for x in (ref, naive, ours))
        assert ours.dtype == naive.dtype
        assert np.all(np.abs(ref - ours) <= np.abs(ref - naive) + 1e-2 * np.max(np.abs(ref)))


def test_non_finite_hidden_states_agree():
    h, w, t = make_inputs(8, 16, 8, 40)
    h = h.at[3].set(jnp.nan).at[9, 2].set(jnp.inf)
    local = scores("local", h, w, t, 6, 1.0)
    fused = scores("fused", h, w, t, 6, 1.0)
    assert np.isnan(fused[0][3]) and np.isnan(fused[0][9])
    assert ulps(local[0], fused[0]).max() <= 2
    assert entropy_ulps(local[1], fused[1]).max() <= 8


def test_empty_input():
    h, w, _ = make_inputs(9, 1, 4, 10)
    logps, entropy = per_token_logps(h[:0], w, jnp.zeros((0,), jnp.int32), mode="fused", chunk_size=4,
                                     return_entropy=True)
    assert logps.shape == entropy.shape == (0,)


@pytest.mark.parametrize("kwargs", [dict(mode="fuse", chunk_size=4), dict(mode="fused", chunk_size=0),
                                    dict(mode="local", chunk_size=2.0)])
def test_bad_arguments_raise(kwargs):
    h, w, t = make_inputs(10, 4, 4, 10)
    with pytest.raises(ValueError):
        per_token_logps(h, w, t, **kwargs)


# Scoring of explicit logits: the fused pass and its cotangent against log_softmax + take_along_axis.

def reference_scores(logits, targets):
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    logps = jnp.take_along_axis(log_probs, targets[:, None], axis=-1)[:, 0]
    p = jnp.exp(log_probs)
    return logps, -jnp.sum(p * jnp.where(p > 0, log_probs, 0.0), axis=-1)


def edge_logits():
    inf, nan = np.inf, np.nan
    rows = np.array([
        [1.0, 2.0, 3.0, 4.0, 0.5, -1.0],
        [1.0, -inf, 3.0, 4.0, -inf, -1.0],  # -inf at non-targets
        [-inf, 2.0, 3.0, 4.0, 0.5, -1.0],  # -inf at the target
        [1.0, 2.0, inf, 4.0, 0.5, -1.0],  # +inf
        [1.0, nan, 3.0, 4.0, 0.5, -1.0],  # NaN
        [-inf, -inf, -inf, -inf, -inf, -inf],  # no finite logit
        [1.0, 2.0, 3.0, 4.0, 0.5, -1.0],  # negative id, wraps
        [1.0, 2.0, 3.0, 4.0, 0.5, -1.0],  # id == vocab
        [1.0, 2.0, 3.0, 4.0, 0.5, -1.0],  # id == -vocab - 1
        [1.0, 2.0, 3.0, 4.0, 0.5, -1.0],  # id == -vocab, wraps to 0
        [1.0, 2.0, 3.0, 4.0, 0.5, -1.0],  # last id
        [30.0, -40.0, 3.0, 90.0, 0.5, -1.0],  # peaked
    ], np.float32)
    targets = np.array([2, 2, 0, 1, 0, 3, -2, 6, -7, -6, 5, 1], np.int32)
    return jnp.asarray(rows), jnp.asarray(targets)


def test_edge_case_scores_match_local():
    logits, targets = edge_logits()
    want_logps, want_entropy = reference_scores(logits, targets)
    logps, entropy, _, _ = head._head_stats(logits, targets, True)
    np.testing.assert_array_equal(np.isnan(logps), np.isnan(want_logps))
    assert ulps(want_logps, logps).max() <= 2
    assert entropy_ulps(want_entropy, entropy).max() <= 8
    # The wraps and the bounds: -2 reads entry 4, -6 entry 0; 6 and -7 are outside the vocabulary.
    assert np.isnan(logps[7]) and np.isnan(logps[8])
    assert np.isfinite(logps[6]) and np.isfinite(logps[9]) and np.isfinite(logps[10])
    assert logps[2] == -np.inf


@pytest.mark.parametrize("vocab", [100, *(pytest.param(vocab, marks=pytest.mark.slow) for vocab in (263, 1000, 4097))])
def test_log_probs_near_zero_match_local(vocab):
    """Targets at their row's max: the log-prob is -log(exp-sum) with the sum near 1, where one
    ulp of the sum is many of the result, so the fused exp-sum must round as local's does (the
    previous fused pass, max and target in one variadic reduction and exp-sum and entropy in
    another, was 189 to 4,082 ulp off here)."""
    logits = jnp.asarray(np.random.default_rng(vocab).standard_normal((64, vocab)) * 4, jnp.float32)
    targets = jnp.argmax(logits, axis=-1)
    want, _ = jax.jit(reference_scores)(logits, targets)
    got, _ = jax.jit(lambda z, t: head._head_stats(z, t, True)[:2])(logits, targets)
    assert ulps(want, got).max() <= 2


@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_edge_case_cotangent_matches_autodiff(temperature):
    logits, targets = edge_logits()
    cotangent = jnp.linspace(-1.5, 2.0, logits.shape[0])
    _, vjp = jax.vjp(lambda z: reference_scores(z / temperature, targets)[0], logits)
    (want,) = vjp(cotangent)
    scaled = logits / temperature
    _, _, row_max, exp_sum = head._head_stats(scaled, targets, False)
    got = head._head_cotangent(scaled, targets, row_max, exp_sum, cotangent, temperature)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_target_hit_by_hand():
    logits = jnp.zeros((5, 4))
    hit, valid = head._target_hit(logits, jnp.array([0, 3, -1, 4, -5]))
    np.testing.assert_array_equal(hit, np.array([
        [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]], bool))
    np.testing.assert_array_equal(valid, [True, True, True, False, False])


# Program shape.

def grad_program(mode, entropy_weight):
    h, w, t = make_inputs(11, 24, 8, 64)

    def loss(h, w, t):
        logps, entropy = per_token_logps(h, w, t, mode=mode, chunk_size=8, return_entropy=True)
        # Weight 0 leaves the entropy out: 0 * entropy would send it a real (zero) cotangent.
        return jnp.sum(logps) + entropy_weight * jnp.sum(entropy) if entropy_weight else jnp.sum(logps)

    lowered = jax.jit(jax.grad(loss, argnums=(0, 1))).lower(h, w, t)
    return lowered.as_text(), lowered.compile().as_text()


def count_ops(text, *names):
    return sum(text.count(f"stablehlo.{name}") + text.count(f" {name}(") for name in names)


def test_fused_log_prob_backward_has_no_gather_scatter_or_sort_and_one_barrier():
    lowered, compiled = grad_program("fused", 0.0)
    for text in (lowered, compiled):
        assert count_ops(text, "gather", "scatter", "sort") == 0
    # XLA:CPU drops the barrier once common subexpressions are merged, so it is counted before compiling.
    assert lowered.count("stablehlo.optimization_barrier") == 1


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16])
def test_fused_one_chunk_temporaries_at_most_two_thirds_of_local(dtype):
    """The issue's memory target, on the compiled GRPO step at a shape where it binds (C=4,096,
    V=32,768, hidden 256): fused keeps two f32 [C, V] buffers where local keeps three. In bf16 that
    holds only while the f32 copy of the weight is made after the cotangent (_read_after)."""
    shapes = (jax.ShapeDtypeStruct((4096, 256), dtype), jax.ShapeDtypeStruct((256, 32768), dtype),
              jax.ShapeDtypeStruct((4096,), jnp.int32))

    def temp_bytes(mode):
        def loss(h, w, t):  # as bench/trainer_bench.py: the entropy is reported, not differentiated
            logps, entropy = per_token_logps(h, w, t, mode=mode, chunk_size=4096, return_entropy=True)
            return jnp.sum(jnp.linspace(-1.0, 1.0, 4096) * logps), jax.lax.stop_gradient(entropy)
        step = jax.jit(jax.value_and_grad(loss, argnums=(0, 1), has_aux=True))
        return step.lower(*shapes).compile().memory_analysis().temp_size_in_bytes

    assert temp_bytes("fused") <= 0.67 * temp_bytes("local")


def test_entropy_gradient_takes_the_autodiff_backward():
    local_lowered, _ = grad_program("local", 0.0)
    assert count_ops(local_lowered, "scatter") >= 1
    lowered, _ = grad_program("fused", 0.5)
    assert count_ops(lowered, "scatter") >= 1
