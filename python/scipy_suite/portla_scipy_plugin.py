"""A pytest plugin that runs SciPy's own tests of its iterative solvers with portla.scipy's
solvers in place of SciPy's: every name portla.scipy exports (__all__) is replaced
in scipy.sparse.linalg and scipy.sparse.linalg._isolve before the test modules are imported, so
their parametrized solver lists hold portla's functions. SciPy's other solvers stay SciPy's.

The tests that are expected to fail are listed in expected_failures.txt beside this file (one
node id and its reason a line); each is marked xfail(strict=True), so one that starts passing
fails the run until its line is removed.

    python -m pytest -p portla_scipy_plugin --pyargs scipy.sparse.linalg._isolve.tests \\
        "scipy.sparse.tests.test_array_api::test_solvers" \\
        "scipy.sparse.tests.test_array_api::test_lstsqr"   (with this folder on PYTHONPATH)
"""

from __future__ import annotations

import pathlib
from typing import Dict

import pytest

EXPECTED_FAILURES = pathlib.Path(__file__).with_name("expected_failures.txt")


def read_expected_failures(path: pathlib.Path = EXPECTED_FAILURES) -> Dict[str, str]:
    """{node id from scipy's package folder on ("sparse/linalg/...::test[x]"): reason}. Lines are
    "NODE_ID  reason"; blank lines and lines starting with # are skipped."""
    expected: Dict[str, str] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        node, _, reason = line.partition(" ")
        if not reason.strip():
            raise ValueError(f"{path}:{number}: no reason given for {node}")
        if node in expected:
            raise ValueError(f"{path}:{number}: {node} listed twice")
        expected[node] = reason.strip()
    return expected


def substitute_solvers() -> None:
    import scipy.sparse.linalg as sla
    import scipy.sparse.linalg._isolve as isolve

    import portla.scipy as pscipy

    for name in pscipy.__all__:
        setattr(sla, name, getattr(pscipy, name))
        setattr(isolve, name, getattr(pscipy, name))


def pytest_configure(config: pytest.Config) -> None:
    substitute_solvers()
    config._portla_expected = read_expected_failures()
    config._portla_seen = set()


def _scipy_id(item: pytest.Item) -> str:
    """The item's node id from scipy's package folder on, whatever pytest's rootdir."""
    import scipy

    path = pathlib.Path(item.path).resolve()
    root = pathlib.Path(scipy.__file__).resolve().parent.parent
    name = item.nodeid[item.nodeid.index("::") :] if "::" in item.nodeid else ""
    try:
        return path.relative_to(root / "scipy").as_posix() + name
    except ValueError:
        return item.nodeid


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    expected = config._portla_expected
    config._portla_files = set()
    for item in items:
        node = _scipy_id(item)
        config._portla_files.add(node.split("::")[0])
        if node in expected:
            config._portla_seen.add(node)
            item.add_marker(pytest.mark.xfail(reason=expected[node], strict=True))


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    # A listed test of a collected file that was not collected: a stale line (a SciPy release
    # that renamed it), unless -k or -m left it out.
    files = getattr(config, "_portla_files", set())
    missing = sorted(
        node
        for node in set(config._portla_expected) - config._portla_seen
        if node.split("::")[0] in files
    )
    if missing and not config.option.keyword and not config.option.markexpr:
        terminalreporter.write_line(
            "portla: listed in expected_failures.txt but not collected: " + ", ".join(missing)
        )
