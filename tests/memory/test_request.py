"""What is compiled and what a verdict is kept by: the argv handed to MaxText's train_compile, and
a key that changes with every value, topology and compiler flag the program depends on."""

from hypothesis import given
from hypothesis import strategies as st

from flaglint.frontends.check.inputs import check_sources
from flaglint.frontends.checker import Checker
from flaglint.memory.request import compile_request
from flaglint.pins.pins import DEFAULT_PIN

CHECKER = Checker(DEFAULT_PIN)
VERSIONS = {"jax": "0.12.0.1", "libtpu": "0.0.52"}


def request(*argv, topology="v5e-8", slices=1, env=None, model=None):
    (source,) = check_sources(argv, CHECKER.pin.configs)
    config = Checker(DEFAULT_PIN, model).config(source, env or {})[0]
    return compile_request(config, CHECKER.pin.version, topology, slices, env or {})


def test_the_argv_is_maxtexts_base_config_and_the_words_given_in_order():
    made = request("per_device_batch_size=2", "remat_policy=full", env={"LIBTPU_INIT_ARGS": "--xla_x=1", "HOME": "/root"})
    assert made.module == "maxtext.trainers.pre_train.train_compile"
    assert made.runner_input() == {
        "module": "maxtext.trainers.pre_train.train_compile",
        "argv": ["maxtext/configs/base.yml", "per_device_batch_size=2", "remat_policy=full", "compile_topology=v5e-8",
                 "compile_topology_num_slices=1"],
        "env": {"LIBTPU_INIT_ARGS": "--xla_x=1"},  # the compiler's variables only
    }


def test_a_model_given_by_option_is_named_to_maxtext_which_reads_its_file():
    made = request("per_device_batch_size=1", model="llama2-7b")
    assert made.argv == ("maxtext/configs/base.yml", "per_device_batch_size=1", "model_name=llama2-7b")


@given(st.integers(1, 64), st.integers(1, 64), st.sampled_from(["v5e-8", "v5e-16"]), st.sampled_from(["", "--xla_a=1"]))
def test_the_key_is_the_same_for_the_same_launch_and_differs_for_any_change(batch, steps, topology, libtpu):
    def key(batch=batch, steps=steps, topology=topology, libtpu=libtpu, versions=VERSIONS):
        env = {"LIBTPU_INIT_ARGS": libtpu} if libtpu else {}
        return request(f"per_device_batch_size={batch}", f"steps={steps}", topology=topology, env=env).key(CHECKER.pin.pin, versions, "")

    first = key()
    assert first == key()
    assert first != key(batch=batch + 1)
    assert first != key(topology="v5e-32")
    assert first != key(libtpu=libtpu + " --xla_b=2")
    assert first != key(versions={**VERSIONS, "libtpu": "0.0.53"})  # a verdict holds for one libtpu
