"""The type stubs name what the module has, and the module has docstrings for what they name."""

import ast
from pathlib import Path

import tilescan
from tilescan import scan

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "tilescan"


def stub_names(path):
    tree = ast.parse(path.read_text())
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def test_stubs_match_the_module():
    names = stub_names(PACKAGE / "__init__.pyi")
    exported = {name for name in tilescan.__all__ if name != "scan"}
    assert names == exported
    assert stub_names(PACKAGE / "scan.pyi") == {name for name in dir(scan) if not name.startswith("_")}


def test_everything_public_has_a_docstring():
    for name in tilescan.__all__:
        assert getattr(tilescan, name).__doc__, name
    for name in dir(scan):
        if not name.startswith("_"):
            assert getattr(scan, name).__doc__, name
