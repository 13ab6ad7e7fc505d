"""flaglint/importer/optax.py: the names `optax` and `optax.schedules` export, read from the
package's source (never imported), each function's parameters as inspect.signature gives them."""

from __future__ import annotations

import pytest

from flaglint.core.findings import InputError
from flaglint.importer.optax import import_optax

FILES = {
    "optax/__init__.py": "from optax import schedules\nfrom optax import transforms\nfrom optax._src.alias import adamw\n"
                         "from optax._src.alias import sgd as plain_sgd\nclip = transforms.clip\nnadam = _partial(adamw)\n"
                         "__version__ = '9.9.9'\n_private = 1\n",
    "optax/_src/__init__.py": "",
    "optax/_src/alias.py": "def adamw(learning_rate, b1=0.9, *, nesterov=False):\n    pass\n"
                           "def sgd(learning_rate, *args, momentum=None, **kwargs):\n    pass\n",
    "optax/transforms/__init__.py": "from optax.transforms._clipping import clip\n",
    "optax/transforms/_clipping.py": "def clip(max_delta):\n    pass\n",
    "optax/schedules/__init__.py": "from optax.schedules._schedule import constant_schedule\nfrom optax._src.base import Schedule\n",
    "optax/schedules/_schedule.py": "def constant_schedule(value):\n    pass\n",
}


def test_exports_and_their_parameters_are_read_from_the_source(tmp_path):
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    facts = import_optax(tmp_path)
    assert facts["version"] == "9.9.9"
    optimizers = facts["optimizers"]
    assert set(optimizers) == {"adamw", "plain_sgd", "clip", "nadam", "schedules", "transforms"}
    assert optimizers["adamw"] == [["learning_rate", True], ["b1", False], ["nesterov", False]]
    # *args and **kwargs have no default: Tunix's _extract_kwargs asks the section for them too
    assert optimizers["plain_sgd"] == [["learning_rate", True], ["args", True], ["momentum", False], ["kwargs", True]]
    assert optimizers["clip"] == [["max_delta", True]]  # through `clip = transforms.clip`
    assert optimizers["nadam"] is None and optimizers["schedules"] is None  # no function flaglint can read
    assert facts["schedules"] == {"constant_schedule": [["value", True]], "Schedule": None}


def test_a_folder_without_optax_is_refused_in_one_line(tmp_path):
    with pytest.raises(InputError, match="no optax package"):
        import_optax(tmp_path)
