"""Per-token log-probs (and entropy) of an LM head, chunked over tokens, in two programs.

"local" scores each chunk with log_softmax and take_along_axis and differentiates that.
"fused" takes each chunk's exponentials once (the exp-sum, target logit and entropy all come
from them) and, when only the log-probs carry a cotangent, forms the logits' cotangent in one
elementwise pass over recomputed logits.
Both give the same values on every input, non-finite logits and odd target ids included:
a negative id wraps once (id + vocab), an id outside [-vocab, vocab) scores NaN and gets
no gradient, and a row with NaN, +inf or no finite logit scores NaN.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax
from jax.custom_derivatives import SymbolicZero

MODES = ("local", "fused")
LANES = 256


def per_token_logps(hidden, weight, targets, *, mode, chunk_size, temperature=1.0, return_entropy=False, remat=False):
    """Log-probs [N] of `targets` under softmax(hidden @ weight / temperature), or (log-probs, entropy).

    hidden is [N, H], weight [H, V], targets [N] ints. Tokens go through in chunks of
    `chunk_size`; N need not be a multiple. `temperature` is a Python number. `remat` makes the
    local program recompute each chunk's logits in its backward (Tunix's compute_chunked_logps).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size <= 0:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if hidden.ndim != 2 or weight.ndim != 2 or targets.ndim != 1:
        raise ValueError("expected hidden [N, H], weight [H, V] and targets [N]")
    if hidden.shape[1] != weight.shape[0] or hidden.shape[0] != targets.shape[0]:
        raise ValueError(f"shapes do not agree: hidden {hidden.shape}, weight {weight.shape}, targets {targets.shape}")
    temperature = float(temperature)
    n = hidden.shape[0]
    if n == 0:
        empty = jnp.zeros((0,), _compute_dtype(hidden.dtype))
        return (empty, empty) if return_entropy else empty
    chunk = min(chunk_size, n)
    num_chunks = -(-n // chunk)
    pad = num_chunks * chunk - n
    hidden_chunks = jnp.pad(hidden, ((0, pad), (0, 0))).reshape(num_chunks, chunk, hidden.shape[1])
    target_chunks = jnp.pad(targets, (0, pad)).reshape(num_chunks, chunk)
    if mode == "local":
        outs = _local_scan(hidden_chunks, weight, target_chunks, temperature, remat)
    else:
        outs = _fused_scan(temperature, return_entropy, hidden_chunks, weight, target_chunks)
    logps = outs[0].reshape(-1)[:n]
    if not return_entropy:
        return logps
    return logps, outs[1].reshape(-1)[:n]


def _compute_dtype(dtype):
    return jnp.promote_types(dtype, jnp.float32)


def _logits(hidden, weight, temperature):
    logits = jnp.dot(hidden, weight, preferred_element_type=_compute_dtype(hidden.dtype))
    return logits / temperature


def _local_chunk(hidden, weight, targets, temperature):
    log_probs = jax.nn.log_softmax(_logits(hidden, weight, temperature), axis=-1)
    logps = jnp.take_along_axis(log_probs, targets[:, None], axis=-1)[:, 0]
    probs = jnp.exp(log_probs)
    # where() inside the product: p * where(p > 0, lsm, 0) keeps the gradient finite at -inf logits.
    entropy = -jnp.sum(probs * jnp.where(probs > 0, log_probs, 0.0), axis=-1)
    return logps, entropy


def _local_scan(hidden_chunks, weight, target_chunks, temperature, remat):
    chunk_fn = partial(_local_chunk, temperature=temperature)
    if remat:
        chunk_fn = jax.checkpoint(chunk_fn)

    def step(_, xs):
        hidden, targets = xs
        return None, chunk_fn(hidden, weight, targets)

    _, outs = lax.scan(step, None, (hidden_chunks, target_chunks))
    return outs


def _wrapped_targets(targets, vocab):
    """Targets as take_along_axis reads them: negative ids wrap once; `valid` is False outside the vocabulary."""
    wrapped = jnp.where(targets < 0, targets + vocab, targets)
    valid = (wrapped >= 0) & (wrapped < vocab)
    return wrapped, valid


def _target_hit(logits, targets):
    """[C, V] one-hot of each row's target, and whether the target is in the vocabulary."""
    wrapped, valid = _wrapped_targets(targets, logits.shape[-1])
    hit = lax.broadcasted_iota(wrapped.dtype, logits.shape, 1) == wrapped[:, None]
    return hit, valid


def _sum_pair(first, second):
    """Row sums of two [C, V] arrays in one variadic reduction.

    XLA:CPU hands a single-output sum to its YNNPACK library, which needs its operand in
    memory; a variadic reduction stays in XLA's own loop and reads its operands' producers in
    place. That loop adds the terms one after another, so the vocabulary is split into 256
    lanes summed at the end, which keeps the rounding error near that of a vectorised sum. A
    vocabulary that is not a multiple of 256 (GPT-2's 50,257) is padded with zeros, which the
    loop reads in place too.
    """
    pad = -first.shape[-1] % LANES
    if pad:
        first, second = (jnp.pad(x, ((0, 0), (0, pad))) for x in (first, second))
    split = (first.shape[0], first.shape[-1] // LANES, LANES)
    zero = jnp.zeros((), first.dtype)
    first, second = lax.reduce(
        (first.reshape(split), second.reshape(split)), (zero, zero), lambda a, b: (a[0] + b[0], a[1] + b[1]), (1,)
    )
    return jnp.sum(first, axis=-1), jnp.sum(second, axis=-1)


def _head_stats(logits, targets, with_entropy):
    """A chunk's log-probs, entropy (or None), and the max and exp-sum, from one exp per logit.

    The max, `logits - max` and the exp-sum are log_softmax's own operations (a plain max, and
    a plain sum of the exponentials), so XLA compiles them as it does local's, with the same
    kernels and summation order: the log-probs and the backward's residuals agree to the last
    bit. A variadic sum would be reduced in another order, and a log-prob near 0 (log of an
    exp-sum near 1) turns one ulp of the sum into many of the result.
    """
    hit, valid = _target_hit(logits, targets)
    zero = jnp.zeros((), logits.dtype)
    row_max = jnp.max(logits, axis=-1)
    shifted = logits - row_max[:, None]
    exps = jnp.exp(shifted)
    exp_sum = jnp.sum(exps, axis=-1)
    # The target's shifted logit and the entropy's sum share a pass; where() inside the
    # product, as in local's entropy, so a -inf logit adds 0 rather than NaN.
    weighted_terms = exps * jnp.where(exps > 0, shifted, zero) if with_entropy else jnp.zeros_like(shifted)
    picked, weighted = _sum_pair(jnp.where(hit, shifted, zero), weighted_terms)
    log_sum = jnp.log(exp_sum)
    logps = jnp.where(valid, picked - log_sum, jnp.nan)
    entropy = log_sum - weighted / exp_sum if with_entropy else None
    return logps, entropy, row_max, exp_sum


def _head_cotangent(logits, targets, row_max, exp_sum, logps_ct, temperature):
    """The logits' cotangent for a log-prob cotangent alone, in one elementwise pass.

    The same f32 operations, in the same order, as the transpose of log_softmax + take_along_axis.
    """
    hit, valid = _target_hit(logits, targets)
    ct = jnp.where(valid, logps_ct, jnp.zeros((), logps_ct.dtype))
    zero = jnp.zeros((), logits.dtype)
    logits_ct = jnp.where(hit, ct[:, None], zero) + jnp.exp(logits - row_max[:, None]) * ((-ct) / exp_sum)[:, None]
    return logits_ct / temperature


@partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _fused_scan(temperature, with_entropy, hidden_chunks, weight, target_chunks):
    return _fused_forward(temperature, with_entropy, hidden_chunks, weight, target_chunks)[0]


def _fused_forward(temperature, with_entropy, hidden_chunks, weight, target_chunks):
    def step(_, xs):
        hidden, targets = xs
        logps, entropy, row_max, exp_sum = _head_stats(_logits(hidden, weight, temperature), targets, with_entropy)
        return None, ((logps, entropy) if with_entropy else (logps,), row_max, exp_sum)

    _, (outs, row_max, exp_sum) = lax.scan(step, None, (hidden_chunks, target_chunks))
    return outs, row_max, exp_sum


def _fused_fwd(temperature, with_entropy, hidden_chunks, weight, target_chunks):
    hidden_chunks, weight, target_chunks = hidden_chunks.value, weight.value, target_chunks.value
    outs, row_max, exp_sum = _fused_forward(temperature, with_entropy, hidden_chunks, weight, target_chunks)
    return outs, (hidden_chunks, weight, target_chunks, row_max, exp_sum)


def _fused_bwd(temperature, with_entropy, residuals, cts):
    hidden_chunks, weight, target_chunks, row_max, exp_sum = residuals
    logps_ct = cts[0]
    if with_entropy and not isinstance(cts[1], SymbolicZero):
        if isinstance(logps_ct, SymbolicZero):
            logps_ct = jnp.zeros(logps_ct.shape, logps_ct.dtype)
        _, vjp = jax.vjp(
            lambda h, w: _local_scan(h, w, target_chunks, temperature, remat=True), hidden_chunks, weight
        )
        hidden_ct, weight_ct = vjp((logps_ct, cts[1]))
        return hidden_ct, weight_ct, None
    if isinstance(logps_ct, SymbolicZero):
        return jnp.zeros_like(hidden_chunks), jnp.zeros_like(weight), None
    return (*_fused_cotangents(temperature, hidden_chunks, weight, target_chunks, row_max, exp_sum, logps_ct), None)


def _fused_cotangents(temperature, hidden_chunks, weight, target_chunks, row_max, exp_sum, logps_ct):
    acc_dtype = _compute_dtype(weight.dtype)

    def step(weight_ct, xs):
        hidden, targets, chunk_max, chunk_sum, chunk_ct = xs
        logits_ct = _head_cotangent(
            _logits(hidden, weight, temperature), targets, chunk_max, chunk_sum, chunk_ct, temperature
        )
        # Both matmuls read this one materialised cotangent instead of each recomputing the pass.
        logits_ct, hidden, ordered_weight = lax.optimization_barrier((logits_ct, hidden, weight))
        if weight.dtype != acc_dtype:
            ordered_weight = _read_after(ordered_weight, logits_ct)
        # The two products autodiff forms for the logits' dot, with its operand order and
        # contractions, so XLA picks the same kernels and sums in the same order.
        hidden_ct = lax.dot_general(logits_ct, ordered_weight, (((1,), (1,)), ((), ())), preferred_element_type=acc_dtype)
        chunk_weight_ct = lax.dot_general(logits_ct, hidden, (((0,), (0,)), ((), ())), preferred_element_type=acc_dtype)
        return weight_ct + chunk_weight_ct.T, hidden_ct.astype(hidden.dtype)

    weight_ct, hidden_ct = lax.scan(
        step,
        jnp.zeros(weight.shape, acc_dtype),
        (hidden_chunks, target_chunks, row_max, exp_sum, logps_ct),
        reverse=True,  # sum the chunks' weight gradients in the order autodiff of the forward scan does
    )
    return hidden_ct, weight_ct.astype(weight.dtype)


def _read_after(value, dependency):
    """`value`, bit for bit, as an operation that reads `dependency` first.

    XLA:CPU drops optimization barriers before it schedules, so only a data dependence orders
    the f32 copy it makes of a bf16 dot operand: without one, the copy of the [H, V] weight is
    made early and stays alive across the cotangent's pass. The bits of `value` are OR-ed with
    a zero the compiler cannot fold, shifted out of one element of `dependency`.
    """
    bits = jnp.dtype(f"uint{8 * value.dtype.itemsize}")
    word = jnp.dtype(f"uint{8 * dependency.dtype.itemsize}")
    half = jnp.asarray(4 * dependency.dtype.itemsize, word)
    first = lax.bitcast_convert_type(dependency.reshape(-1)[:1], word)  # [:1]: empty for an empty vocabulary
    zero = lax.shift_right_logical(lax.shift_right_logical(first, half), half).astype(bits)
    return lax.bitcast_convert_type(lax.bitcast_convert_type(value, bits) | zero, value.dtype)


_fused_scan.defvjp(_fused_fwd, _fused_bwd, symbolic_zeros=True)
