"""`gate` sees a container's launch behind the shell options and wrappers it is written with:
`bash -o pipefail -c`, `sh -e -c`, `/usr/bin/env bash -c`, and in the script `nice`, `stdbuf`,
`timeout`, `env K=V` (also setting the flags), `exec`."""

from __future__ import annotations

import pytest
from test_gate import PIN, _findings

from flaglint.frontends.checker import Checker
from flaglint.frontends.gate.manifests import check_manifest

FLAGS = "moe_roe_packed_routing_gather=true moe_chunk_pipeline=false"


def _manifest(command: list[str], script: str) -> str:
    words = ", ".join(f'"{word}"' for word in command)
    return f"""\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: wrapped}}
spec:
  replicatedJobs:
  - name: proc
    template:
      spec:
        template:
          spec:
            containers:
            - name: main
              command: [{words}, "{script}"]
"""


@pytest.mark.parametrize("command", [["bash", "-o", "pipefail", "-c"], ["sh", "-e", "-c"], ["/usr/bin/env", "bash", "-c"],
                                     ["env", "A=1", "bash", "-lc"]])
def test_the_script_of_a_shell_with_options_is_evaluated(command):
    script = f'export MAXTEXT_EXTRA_FLAGS=\\"{FLAGS}\\"\\npython3 -m tunix.main'
    (error,) = _findings(check_manifest(_manifest(command, script), checker=Checker(PIN), fix=False))
    assert error.rule == "FL101"


@pytest.mark.parametrize("launch", [
    f"MAXTEXT_EXTRA_FLAGS=\\\"{FLAGS}\\\" nice -n 5 python3 -m tunix.main",
    f"export MAXTEXT_EXTRA_FLAGS=\\\"{FLAGS}\\\"\\nstdbuf -oL -eL timeout --signal=TERM 12h python3 -m tunix.main",
    f"env MAXTEXT_EXTRA_FLAGS=\\\"{FLAGS}\\\" taskset -c 0-7 python3 -m tunix.main",
    f"export MAXTEXT_EXTRA_FLAGS=\\\"{FLAGS}\\\"\\nexec nohup numactl --cpunodebind=0 python3 -m tunix.main",
])
def test_a_launch_behind_wrappers_in_the_script_is_checked(launch):
    (error,) = _findings(check_manifest(_manifest(["bash", "-c"], launch), checker=Checker(PIN), fix=False))
    assert error.rule == "FL101"


def test_env_i_drops_the_flags_the_script_exported():
    launch = f"export MAXTEXT_EXTRA_FLAGS=\\\"{FLAGS}\\\"\\nenv -i PATH=/usr/bin python3 -m tunix.main"
    assert _findings(check_manifest(_manifest(["bash", "-c"], launch), checker=Checker(PIN), fix=False)) == []
