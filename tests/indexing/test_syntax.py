"""The syntax hash: formatting, comments and docstrings leave it; a real change moves it (Python and JavaScript)."""

from __future__ import annotations

import pytest

from forewarn.indexing.languages import language_for_path
from forewarn.indexing.parse import parse_file


def hashes(rel: str, source: str) -> dict[str, str]:
    spec = language_for_path(rel)
    assert spec is not None
    return {c.symbol: c.syntax_hash for c in parse_file(source.encode(), spec, syntax=True).chunks if c.part == 0}


PY = '''\
def charge(amount, currency="EUR"):
    """Charge in cents."""
    total = (amount + 1) * 100  # cents
    label = "a" "b"
    return {"total": total, "currency": currency, "label": f"{label}!"}
'''

PY_SAME = [
    # black: quotes, trailing commas, parentheses, line breaks; comments and the docstring rewritten
    "def charge(amount, currency='EUR',):\n    '''Charge, in cents (reworded).'''\n    # the total\n"
    "    total = ((amount + 1) * 100)\n    label = 'ab'\n"
    "    return {\n        'total': total,\n        'currency': currency,\n        'label': f'{label}!',\n    }\n",
    PY.replace('    """Charge in cents."""\n', ""),  # the docstring removed
    PY.replace("charge", "charge_card"),  # renamed: the own name is a placeholder (the symbol says it changed)
]
PY_DIFFERENT = [
    PY.replace("(amount + 1) * 100", "amount + 1 * 100"),  # precedence: brackets dropped, nesting kept
    PY.replace("* 100", "* 1000"),
    PY.replace('currency="EUR"', 'currency="USD"'),
    PY.replace('f"{label}!"', 'f"{label}?"'),
    PY.replace('"a" "b"', '"a" "c"'),
    PY.replace("return {", "print(total)\n    return {"),
]


def test_python_formatting_comments_and_docstrings_keep_the_hash() -> None:
    base = hashes("m.py", PY)
    assert base["charge"]
    for variant in PY_SAME:
        changed = hashes("m.py", variant)
        assert next(iter(changed.values())) == base["charge"], variant


@pytest.mark.parametrize("variant", PY_DIFFERENT)
def test_python_real_changes_move_the_hash(variant: str) -> None:
    assert hashes("m.py", variant)["charge"] != hashes("m.py", PY)["charge"]


JS = "function total(items) {\n  // prices\n  return items.reduce((a, b) => a + b.price, 0);\n}\n"


def test_javascript_semicolons_quotes_and_comments_keep_it_operators_do_not() -> None:
    base = hashes("c.js", JS)["total"]
    assert (
        hashes("c.js", "function total(items)\n{\n  return items.reduce((a, b) => a + b.price, 0)\n}\n")["total"]
        == base
    )
    assert hashes("c.js", JS.replace("a + b.price", "a - b.price"))["total"] != base
    assert hashes("c.js", JS.replace("0);", "1);"))["total"] != base


def test_the_index_does_not_pay_for_it() -> None:
    spec = language_for_path("m.py")
    assert spec is not None
    assert all(c.syntax_hash == "" for c in parse_file(PY.encode(), spec).chunks)
