"""Where a lesson goes when several definitions tie for most changed (QA pass 6, finding 20).

jsoup 91b630f added a ``checkModified()`` helper to the anonymous iterator class of ``Attributes.iterator``, one
``checkModified();`` line each to ``hasNext`` and ``next``, and ``expectedSize--;`` to ``remove``. Its lesson went to
``remove`` (the one method the check is not in): the body's "outside of Iterator#remove()" counted as naming it. A
type's member written ``Type#member`` names that type's member only; and methods local to one function that tie,
none named, put the lesson on that function, never on whichever comes first.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_anchors import names_in, owned_members
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined

ATTRIBUTES = "src/main/java/org/shop/Attributes.java"

BEFORE = """\
package org.shop;

import java.util.Iterator;

public class Attributes implements Iterable<String> {
    private int size = 0;
    private String[] keys = new String[8];

    public void remove(int index) {
        System.arraycopy(keys, index + 1, keys, index, size - index - 1);
        size--;
    }

    public Iterator<String> iterator() {
        return new Iterator<String>() {
            int i = 0;

            @Override
            public boolean hasNext() {
                while (i < size && keys[i].startsWith("/")) i++;
                return i < size;
            }

            @Override
            public String next() {
                final String key = keys[i];
                i++;
                return key;
            }

            @Override
            public void remove() {
                Attributes.this.remove(--i); // next() advanced, so rewind
            }
        };
    }
}
"""

# 91b630f's change, line for line: a field, a call to the new helper in hasNext and next, the helper, a count in remove
AFTER = """\
package org.shop;

import java.util.ConcurrentModificationException;
import java.util.Iterator;

public class Attributes implements Iterable<String> {
    private int size = 0;
    private String[] keys = new String[8];

    public void remove(int index) {
        System.arraycopy(keys, index + 1, keys, index, size - index - 1);
        size--;
    }

    public Iterator<String> iterator() {
        return new Iterator<String>() {
            int expectedSize = size;
            int i = 0;

            @Override
            public boolean hasNext() {
                checkModified();
                while (i < size && keys[i].startsWith("/")) i++;
                return i < size;
            }

            @Override
            public String next() {
                checkModified();
                final String key = keys[i];
                i++;
                return key;
            }

            private void checkModified() {
                if (size != expectedSize) throw new ConcurrentModificationException("Use Iterator#remove()");
            }

            @Override
            public void remove() {
                Attributes.this.remove(--i); // next() advanced, so rewind
                expectedSize--;
            }
        };
    }
}
"""

MESSAGE = """\
Check for concurrent modifications outside of the Attribute Iterator

Fails fast if an attribute is removed outside of Iterator#remove() while iterating.

Closes #2002
"""


def _history(root: Path, message: str) -> Repo:
    repo = Repo(root)
    repo.write(ATTRIBUTES, BEFORE)
    repo.commit("Add Attributes")
    repo.write(ATTRIBUTES, AFTER)
    repo.commit(message)
    return repo


def _lesson_symbol(repo: Repo, open_ws: list[Workspace]) -> str | None:
    ws, _ = mined(repo, open_ws)
    [lesson] = [m for m in ws.suggestions() if m.source == "commit"]
    assert lesson.anchor is not None
    return lesson.anchor.symbol


def test_methods_of_an_anonymous_class_changed_alike_put_the_lesson_on_the_method_holding_them(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = _history(tmp_path / "repo", MESSAGE)
    assert _lesson_symbol(repo, open_ws) == "Attributes.iterator"
    # a method the subject names keeps the lesson, tie or not
    named = MESSAGE.replace("Check for concurrent modifications", "Check in next() for concurrent modifications")
    assert _lesson_symbol(_history(tmp_path / "named", named), open_ws) == "Attributes.iterator.next"


def test_type_hash_member_names_a_member_of_that_type_only() -> None:
    names = names_in("Fails fast if an attribute is removed outside of Iterator#remove() while iterating.")
    assert "remove" not in names
    assert "Iterator#remove" in names
    # written bare as well, the member is named as before
    assert "remove" in names_in("Iterator#remove() is the only way; remove() in Attributes skips the check.")
    # a type of this code names its member wherever the commit changed it (jsoup 2b573de: the public
    # Element#selectXpath's work is done by NodeUtils.selectXpath)
    said = names_in("Disable namespaces in Element#selectXpath")
    assert "selectXpath" in owned_members(said, {"element"})
    assert "selectXpath" not in owned_members(said, {"node"})
