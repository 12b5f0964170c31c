import os
import pathlib

import pytest

# The omp backend's threads sleep rather than spin while they wait: CTest runs this suite beside
# other tests on a 2-core machine, where spinning threads of an oversubscribed CPU made one
# BiCGSTAB solve on 1138_bus take 30 s instead of 0.25 s (2-core VM, 2026-11-23). Read by
# libgomp when the extension loads, so set before portla is imported.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

SOURCE_DIR = pathlib.Path(
    os.environ.get("PORTLA_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2])
)


@pytest.fixture(scope="module")
def source_dir() -> pathlib.Path:
    return SOURCE_DIR
