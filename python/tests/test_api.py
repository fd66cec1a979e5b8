"""The module's surface: what weld/__init__.py exports is what the type
stubs declare, and every public function says what it does."""

import ast
import inspect
from pathlib import Path

import weld


def stub_names():
    tree = ast.parse((Path(weld.__file__).parent / "__init__.pyi").read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_the_stubs_declare_what_the_module_exports():
    assert set(weld.__all__) == stub_names()
    for name in weld.__all__:
        assert hasattr(weld, name), name


def test_every_public_function_and_class_has_a_docstring():
    for name in weld.__all__:
        value = getattr(weld, name)
        if callable(value):
            assert inspect.getdoc(value), name
    for method in ("is_valid", "validate", "iter_errors", "evaluate", "is_valid_json", "validate_json",
                   "iter_errors_json", "evaluate_json"):
        assert inspect.getdoc(getattr(weld.Validator, method)), method
    assert "max_structured_retries" in weld.run.__doc__
    assert "resume" in weld.batch.__doc__.lower()
