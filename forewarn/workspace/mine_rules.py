"""Which commits teach something: the noise rules and the lesson kinds, each a named pattern with its reason.

:func:`classify` looks at one commit alone (pure: its message, author and paths); what needs the rest of
the history — a later revert, a cherry-pick's twin, a diffuse change with no anchor — is decided by the
run (``mining.mine``) and counted under the same :class:`Noise` names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.history import CommitRecord
from forewarn.workspace.mine_dependencies import dependency_subject, swaps_dependency
from forewarn.workspace.mine_features import FEATURE_SUBJECT, feature, offered, reworked
from forewarn.workspace.mine_lessons import (
    ABOUT_TESTS,
    CONNECTIVES,
    CONVENTIONAL_TAIL,
    FRAGMENT,
    NO_FIX_TYPES,
    REVERT_BODY_LINE,
    SUBJECT_REFS,
    TODO_NOTE,
    UNSURE,
    clean_subject,
    error_signature,
    points_back,
    sentences,
    split_sentences,
    strip_trailers,
    vague,
    why,
)
from forewarn.workspace.mine_product import CHANGELOG_PATH, DOCS_PATH, EXAMPLE_PATH, TOOLING_PATH, is_product_path
from forewarn.workspace.mine_product import (  # re-exported: callers import them from here
    TEST_SUPPORT_PATH as TEST_SUPPORT_PATH,
)
from forewarn.workspace.mine_product import (
    in_test_module as in_test_module,
)
from forewarn.workspace.mine_product import (
    is_product_code as is_product_code,
)
from forewarn.workspace.mine_product import (
    symbol_parts as symbol_parts,
)
from forewarn.workspace.mine_squash import content_stems, off_topic, squash_own_text


class Noise(StrEnum):
    """Why a commit (or a comment) proposes nothing; ``mine --json`` counts each by this name."""

    MERGE = "merge"  # a merge repeats its parents' changes; its message is "Merge branch …"
    BOT = "dependency-bot"  # automated dependency updates carry no team lesson
    VERSION = "version-bump"  # releases and version bumps: a number changed, nothing learned
    COSMETIC = "typo-format-lint"  # typo, formatting or lint fixes do not change behaviour
    TYPING = "typing-only"  # type annotations and type-checker findings: the program behaves the same
    CHANGELOG = "changelog-only"  # release notes restate other commits
    DOCS = "docs-only"  # documentation changes teach readers of the docs, not of the code
    TEST_ONLY = "test-only"  # tests (or examples) changed, no product bug explained: nothing to warn product code of
    EMPTY = "empty-body"  # a subject alone rarely says why; a fix still counts toward hot spots
    REAPPLIED = "revert-of-revert"  # the change is back: what was undone was no dead end after all
    REVERT_NO_REASON = "revert-without-reason"  # "Revert X" alone: a dead end without its why teaches nothing
    REVERTED = "reverted"  # a later commit undid this one: its lesson is withdrawn
    CHERRY_PICK = "cherry-pick"  # the same patch again (git patch-id): counted once
    GIANT = "giant-commit"  # over history.GIANT_COMMIT_FILES files: a mass change, about no one symbol
    REFACTOR = "refactor"  # a restructuring that keeps behaviour ("simplify", "move", "rename"): no trap to warn of
    NO_LESSON = "no-lesson"  # a body that neither explains a fix, reverts with a reason, nor argues a choice
    NO_ANCHOR = "no-anchor"  # a diffuse change that states no repository-wide rule: about no code in particular
    CODE_GONE = "code-gone"  # the code it was about is gone at HEAD
    DUPLICATE = "duplicate"  # the same lesson on the same code, said by another commit or comment
    DOCSTRING = "docstring-not-warning"  # documentation saying "must"/"never" describes, it does not warn
    VAGUE = "vague-subject"  # "PR review fixes", "fix issue", "bugfix": no headline to say, whatever the body holds
    TEST_COMMENT = "comment-in-test"  # a warning in a test (or an example) guards it, not the product
    FEATURE = "feature"  # "Add …", "Allow …", "Support …": new behaviour, not a trap someone fell into
    DEPENDENCY = "dependency-change"  # dropping, pinning or upgrading a dependency: the upstream's lesson, not ours
    FILE_ANCHOR = "file-anchor"  # a commit lesson placed on a whole file: about no code a reader is looking at
    BROAD_ANCHOR = "broad-anchor"  # on a class or a function so long that it is as broad as a file
    TYPING_CODE = "typing-code"  # on code that only declares types (an @overload stub, a TypedDict, a .pyi)
    REWRITTEN = "code-rewritten"  # most of the lines the lesson was about are gone from its code at HEAD
    WEAK_HOTSPOT = "weak-hotspot"  # fixed twice years apart, or in ways since rewritten: no pattern to warn of
    OPEN_QUESTION = "comment-question"  # "XXX should this be encoded too?": a question asked, no warning given
    COMMENT_FRAGMENT = "comment-fragment"  # "Standard case: root URI must match": a label, not a warning with its why
    IMPORT_COMMENT = "comment-on-import"  # "Avoid circular import": about module plumbing, not the code's behaviour
    OLD_RUNTIME = "dropped-runtime"  # about a Python or Node version the project no longer supports ("Python 2")
    WHAT_NOT_WHY = "what-not-why"  # "Flip conditional", "Make X a subclass": says what was done, no cause or constraint
    RESTATES_CODE = "comment-restates-code"  # "# return the result": every word of it is in the code it sits on
    IN_PLAIN_SIGHT = "comment-in-plain-sight"  # a short symbol whose next lines already say much of the comment
    SAME_SYMBOL = "merged-same-symbol"  # another lesson on the same symbol: folded into it as evidence, one per symbol
    DIFFUSE_SYMBOLS = "diffuse-symbols"  # many symbols of one file rewritten, none named: about no one of them
    COMMENT_NO_REASON = "comment-no-reason"  # "do not sort if already sorted": says what the next line does, not why
    COMMENT_TASK = "comment-task"  # "X is unused, remove it in v2", TODO: a task for later, not a warning for now
    COMMENT_FILE_ANCHOR = "comment-file-anchor"  # a warning comment on no symbol: shown on every edit of its file
    COMMENT_NEAR_DUPLICATE = "comment-near-duplicate"  # the same words as another comment but one (a name): one lesson
    WRAPPER_ANCHOR = "wrapper-anchor"  # on a one-call wrapper while the fix changed other code: decided there
    NAMED_IN_PASSING = "named-in-passing"  # its symbol is named only in a side item of a squashed message
    WHY_OTHER_SYMBOL = "why-about-other-symbol"  # its why names another symbol the commit changed, not its anchor
    WHY_CONTRADICTS = "why-contradicts"  # "Remove X" explained by "we want to have X": the why argues the other side
    WHY_ONLY_SHOULD = "why-only-should"  # "X should have Y": an expectation stated, no cause or consequence given
    DOC_COMMENT = "doc-comment"  # "SetCookie adds … must have a valid Name": caller documentation above a declaration
    NOT_A_FIX_TYPE = "conventional-not-fix"  # "chore(bind): …", "feat: …", "perf: …": its author typed it no fix
    PERFORMANCE = "performance"  # "reuse bytes … to avoid allocs": faster code, no bug or pitfall behind it
    PR_TEMPLATE = "pr-template-why"  # its only why was pull-request template text ("[x] I have rebased …")
    WHY_OFF_TOPIC = "why-from-squashed-item"  # its why is a squashed item about something else than its subject
    REVERT_TITLE_WHY = "revert-title-as-why"  # a revert whose why is only another revert's title, on other work
    REVERT_KEPT = "revert-kept-changes"  # its only why says which changes the revert kept ("Don't revert the …")
    # a revert that says the change comes back another way ("landed on main accidentally … will be re-applied via
    # PR"), or whose change a later commit landed again under the same subject: what was undone is no dead end
    REVERT_TO_RELAND = "revert-to-reland"
    # a revert whose undone change is back in HEAD's code of its file (re-applied, or re-done another way): no dead end
    REVERT_BACK = "revert-change-back"
    FIX_IN_PASSING = "fix-in-passing"  # a fix's minor symbol (a constructor it touched in passing): no hot-spot count
    FIX_IN_TESTS = "fix-in-tests"  # "Fix integer overflows in test when run on 32bit": its subject puts it in tests
    TEST_ANCHOR = "lesson-in-test-code"  # a commit lesson placed in a test, a test server or fixtures: no product code
    DECLARATION_ANCHOR = "declaration-anchor"  # its code only gained fields or annotations: the logic is elsewhere
    NO_BEHAVIOUR = "headline-no-behaviour"  # "`x` bug fix", "refactor fix for 593": no behaviour named, no failure said
    COMMENT_DEFENSIVE = "comment-defensive"  # "we should never need to … defensively do it anyway": no trap, a guard
    WHY_TESTS = "why-about-tests"  # its only why is about the tests or the build ("cover the bodyless request case")
    WHY_TODO = "why-note-for-later"  # its only why is a note for later ("when Python 2 is dropped, we can refactor")
    WHY_FRAGMENT = "why-fragment"  # its only why starts mid-sentence ("is preserved in all cases except …")
    WHY_ANAPHOR = "why-anaphor"  # its only why opens on what it points back to ("If it doesn't, …", "Because of this")
    MESSAGE_WORDING = "message-wording"  # "clarify error message", "print more details": what a failure says, no trap
    COMMENT_JUSTIFICATION = "comment-justification"  # "SAFETY: … it must be valid", "OK because …": proves, no trap
    COMMENT_CROSS_REFERENCE = "comment-cross-reference"  # "See `f` for why we need this": the lesson lives elsewhere
    WHY_UNSURE = "why-unsure"  # its only why does not know the cause ("not sure why this fails") or saw no bug
    COMMENT_CONTRACT = "comment-contract-reference"  # "caller must uphold the safety contract for `f`": no terms
    LINT_SUPPRESSION = "comment-lint-suppression"  # "noqa: BLE001 # errors must surface": argues with a linter, no trap
    TOOLING_CODE = "tooling-code"  # on tasks/, scripts/, tools/, a noxfile: the project's tooling, not its product
    HEADLINE_CUT = "headline-cut-off"  # a subject cut mid-sentence that the body goes on with: no headline to say
    SAME_BEHAVIOUR = "says-same-behaviour"  # its own message says the change is functionally equivalent: no trap
    LOGGING_ANCHOR = "logging-anchor"  # its code only gained or lost log lines in the commit: the fix is elsewhere
    COPIED = "copied-code"  # on a file that says it was copied from another project: the upstream's to fix
    WRAPPER_HOTSPOT = "hotspot-on-wrapper"  # its code at HEAD is one call: the fixes' logic lives in what it calls
    # a new hot spot on a symbol that already carries a mined memory: that memory's track record counts the new fix
    SYMBOL_HAS_MEMORY = "symbol-has-memory"


# a conventional-commit subject whose type says it is no fix: "chore(bind): …", "feat!: …", "perf: …"
NOT_FIX_TYPE = re.compile(rf"^\s*({NO_FIX_TYPES}){CONVENTIONAL_TAIL}\s", re.IGNORECASE)
# performance work: faster or leaner code, no misbehaviour ("reuse bytes … to avoid allocs", "speed up parsing"): what
# it costs ("inefficient", "type checking overhead") or work it stops redoing ("Avoid rebuilding regex", "don't
# recompute the hash")
REDONE_WORK = r"re-?(build|comput|compil|creat|alloc|calculat|pars|evaluat|generat|render|hash|copy|copie)\w*"
PERFORMANCE_WORDS = re.compile(
    r"\b(perf(ormance)?|speed(s|ed)? ?up|faster|slow(er)?|optimi[sz]\w*|allocs?|allocat(e|es|ed|ing|ions?)|"
    r"zero[- ]alloc\w*|(less|lower|peak) memory|memory (usage|use|footprint)|(improves?|better) scaling|"
    r"benchmarks?|fewer (allocations|copies)|(avoid|reduce|save)s? (an? )?(extra )?(copy|copies|overhead|memory)|"
    rf"inefficien(t|tly|cy|cies)|overhead|wasteful|(avoid(s|ed|ing)?|skip(s|ped|ping)?|do not|don't) {REDONE_WORK})\b",
    re.IGNORECASE,
)
# pull-request template text left in a squashed message: checkboxes and instructions to the contributor
PR_TEMPLATE_LINE = re.compile(
    r"^\s*([-*]\s*)?\[[ xX]\]"
    r"|\b(your pull request|this pull request|pull requests? should|squash them|i have (read|rebased|added|updated|"
    r"signed|run|tested|checked)|checklist|please (describe|provide|check|make sure)|<!--)",
    re.IGNORECASE,
)
# a revert's body saying which changes it kept ("Don't revert the receive changes", "keep the X change")
KEPT_CHANGES = re.compile(
    r"\b(do(n't| not) revert|keep(s|ing)?|kept|except(ing)?|but not)\b.{0,40}\bchanges?\b", re.IGNORECASE
)
# what goes wrong, in a why: performance work that names one is a fix of misbehaviour, not only of speed
FAILURE_WORDS = re.compile(
    r"\b(fail(s|ed|ing|ures?)?|rais(e|es|ed|ing)|throw(s|n)?|threw|crash(es|ed)?|panic(s|ked)?|hang(s)?|hung|"
    r"leak(s|ed)?|lose[sn]?|lost|corrupt(s|ed)?|broke|breaks|wrong|incorrect(ly)?|timeouts?|deadlock)\b",
    re.IGNORECASE,
)
# "should" and "shouldn't" state what is expected; the condition they hold under ("if they are a prefix") no cause
EXPECTATION_WORDS = frozenset({"should", "shouldn't", "should not"})
CONDITION_WORD = re.compile(r"\b(when|if)\b", re.IGNORECASE)
EXPECTED = re.compile(r"\bshould\b|\bshouldn't\b", re.IGNORECASE)


class VerdictKind(StrEnum):
    REVERT = "revert"
    FIX = "fix"
    DECISION = "decision"
    NOISE = "noise"


BOT_AUTHOR = re.compile(r"\[bot\]|dependabot|renovate|greenkeeper|pyup|snyk-bot|github-actions", re.IGNORECASE)
VERSION_SUBJECT = re.compile(
    r"^\s*(v?\d+(\.\d+)+\S*\s*$|(bump(ed)?|release[ds]?|releasing|prepare|preparing)\b.*\d+\.\d+"
    r"|bump(ed)? (the )?version|version bump|new version|tag(ged)? v?\d)",
    re.IGNORECASE,
)
# typo, docs-in-code and lint work: no behaviour changed, whatever the body says
COSMETIC_SUBJECT = re.compile(
    r"\b(typos?|spelling|misspell\w*|whitespace|flake8|pep ?8|pyflakes|pylint|black|isort|ruff|prettier|eslint|"
    r"lint(ing|er)?|trailing spaces?|indentation|docstrings?|comments?|wording|grammar|versionchanged|versionadded|"
    r"syntax error in (the )?(docs?|rst|markdown))\b",
    re.IGNORECASE,
)
# a compiler's warning silenced ("Fix compiler warning `type-limits` in `found_string`", "fix -Wformat warnings"): lint
# work, as a linter's is, unless the headline joins another change to it
COMPILER_WARNING_SUBJECT = re.compile(
    r"\b(compiler|compile|compilation|build|gcc|g\+\+|clang|msvc|mingw) warnings?\b|(^|\s)-W[a-z][\w=+-]*"
    # "Fixed gcc9 conversion warning", "clang-tidy unused-variable warnings": a compiler named with its version
    r"|\b(gcc|g\+\+|clang|msvc|mingw|icc|vs)[\d.-]*( [\w-]+){0,2} warnings?\b"
    r"|\b(conversion|sign[- ]compare|signed[/ -]unsigned|narrowing|shadow(ing)?|unused[- ][\w-]+|"
    r"(maybe[- ])?uninitiali[sz]ed) warnings?\b"
    r"|\bwarnings? (from|with|by|under|on) (gcc|clang|msvc|mingw|the compiler)\b"
    # … and a linter's ("fix: clippy warning for unnecessary closure")
    r"|\bclippy\b|\b(go vet|staticcheck|golangci-lint|rustc|javac|tsc)( [\w-]+){0,2} (warnings?|lints?)\b",
    re.IGNORECASE,
)
JOINED_CHANGE = re.compile(r"\b(and|also|plus)\b|[,;&]")  # a headline that names a second change beside the first
# formatting: cosmetic, unless a long body says it changed what users see ("format of the error output")
FORMAT_SUBJECT = re.compile(r"\b(format(ting|ted)?|reformat\w*)\b", re.IGNORECASE)
TYPING_SUBJECT = re.compile(
    r"\b(mypy|pyright|pytype|typeshed|typing|type[- ]?hints?|type annotations?|annotat\w+|type[- ]?check\w*|"
    r"types? (errors?|findings?|issues?)|type[- ]?ignored?s?|stubs?|tsc|typescript (errors?|types))\b",
    re.IGNORECASE,
)
REFACTOR_SUBJECT = re.compile(
    r"^\s*(refactor\w*|clean ?up|cleanups?|simplif\w+|rename[sd]?|move[sd]?|tidy|tidied|reorgani[sz]e\w*|"
    r"restructur\w+|extract\w*|split|inline[sd]?|dedupe|deduplicate\w*|modernize\w*|remove (unused|dead|old)|"
    r"drop (support|python)|deprecate\w*|use f-strings|convert (to|from))\b",
    re.IGNORECASE,
)
# the author's own word that the program behaves as before ("functionally equivalent", "no functional change"): what
# was fixed, if anything, was how the code reads; "except …" in the same sentence names a behaviour that did change
SAME_BEHAVIOUR = re.compile(
    r"\b(functionally (equivalent|identical|the same)|no ((runtime|observable|user[- ]visible|external) )?"
    r"(functional|behaviou?r(al)?) changes?"
    r"|behaviou?r (is|stays|remains) (unchanged|the same)|functionally does nothing|does nothing functionally"
    r"|(does not|doesn't|should not|shouldn't|won't|will not) change (any |the )?behaviou?r)\b(?![^.\n]*\bexcept\b)",
    re.IGNORECASE,
)
# an HTML comment block in a message: the pull-request template's instructions, over as many lines as it spans
HTML_COMMENT = re.compile(r"<!--.*?(-->|\Z)", re.DOTALL)
# a subject cut where the author's tool wrapped it: long, no closing punctuation, and the body goes on with the same
# sentence in lower case — a word and a comma ("repaired support for the :meth:`.X`" / "directive, which was …") or a
# word that only joins ("… for the" / "and the pool …"); a lower-case body opening on "the loop spun …" is a sentence
# of its own, written casually
CUT_WHY_WORDS = 4  # a why opening on the body's first words is the cut sentence's tail (a later sentence is kept)
CUT_SUBJECT_MIN_CHARS = 50  # shorter subjects were not wrapped: a lower-case body after them is only casual
JOINING_WORDS = rf"({CONNECTIVES}|to|for|with|at|by|from|into)"  # no sentence opens on them
CUT_CONTINUATION = re.compile(rf"^([a-z][a-z-]*,|{JOINING_WORDS}\s)")
CUT_SUBJECT_END = re.compile(rf"\s({JOINING_WORDS[1:-1]}|a|an|the|in|on|that|is|are|be)$", re.IGNORECASE)
MIN_BODY_WORDS = 6  # fewer words after trailers are stripped is an empty body ("Fixes #12.")

# "Revert "…"", "Reverts …", and a conventional "revert(core): …" (its scope is no part of what it undid)
# "Revert back to an OnSubscribe-based adapter" names the state gone back to, not what was undone: no revert title
REVERT_SUBJECT = re.compile(
    r'^\s*revert(s|ed)?(?!\s+(back\s+)?to\b)(?:\([^()]{0,40}\))?!?(?=[:\s"]|$)[:\s]*"?(?P<what>.*?)"?\s*$', re.I
)
# a "fix" of the tests themselves ("Fix python 3 tests", "fixed some tests"): no product behaviour fixed
TEST_SUBJECT = re.compile(r"\b(tests?|testing|test suite|ci|travis|coverage)\b", re.IGNORECASE)
# a fix of behaviour, by its subject: what hot spots and track records count ("Closes #12" alone closes features
# too; "patch", "handle", "prevent" name changes as often as bugs). Bringing earlier behaviour back ("Restore the
# behavior of cssSelector before v1.16.2", "This restores pre v4.1.11 behavior") undoes a regression; restoring
# anything else ("Restore mouse drag mode", "Restore original docs") is as often a feature or a cleanup.
FIX_SUBJECT = re.compile(
    r"\b(fix(e[sd]|ing)?(?!-\w)|bug(s|fix)?|crash(es|ed)?|regression|broken|breaks?|hotfix|workaround|"
    r"fail(s|ed|ing|ures?)?|incorrect(ly)?|wrong(ly)?)\b"
    r"|\b(restor(e[sd]?|ing)|reinstat(e[sd]?|ing)|bring(s|ing)? back|brought back)\b.*\bbehaviou?rs?\b",
    re.IGNORECASE,
)
# a fix, when the lesson is weighed: the subject or the body says so
FIX_WORDS = re.compile(
    r"\b(fix(e[sd])?(?!-\w)|bug(s|fix)?|crash(es|ed)?|regression|broken|breaks?|hotfix|patch(es|ed)?|"
    r"workaround|resolves? #?\d+|closes? #\d+|handle[sd]?|prevents?|avoids?|fail(s|ed|ing|ures?)?)\b",
    re.IGNORECASE,
)
# a "fix" of documentation changes no behaviour: not a fix for hot spots or error patterns
DOCS_SUBJECT = re.compile(r"\b(docs?|documentation|readme|docstrings?|changelog|comments?)\b", re.IGNORECASE)
# the message explains what went wrong (a cause, a consequence, the old behaviour) or what the change guards
# against: only such a fix is worth a memory of its own. An imperative sentence says what the new code does ("coerce
# the values to strings instead", "throw if the number is a string"): it explains only with a word of STRONG_CAUSE.
STRONG_CAUSE = (
    r"because|caused by|due to|otherwise|would(n't| not)?|could(n't| not)?|so that|in order to|"
    r"to (avoid|prevent|ensure|guard)|previously|used to|was possible|the (problem|issue|bug|cause|reason) (is|was)|"
    r"leads? to|led to|result(s|ed)? in"
)
CAUSE_WORDS = re.compile(
    rf"\b({STRONG_CAUSE}|(can|may|might) (cause|lead|result|break|fail|raise|throw|hang|leak|crash|lose|corrupt)|"
    r"fails?|failed|failing|raises?|raised|throws?|threw|race|deadlock|leak(s|ed)?|hangs?|hung|crash(es|ed)?|"
    r"broke|breaks|causes?|caused|causing|lost|loses|losing|corrupt(s|ed)?|regress(ed|es)|incorrectly|wrongly|instead|"
    r"should(n't| not)?|unless|"
    r"(when|if)\b.+\b(is|are|was|were)|"
    # a consequence or a broken promise said outright ("As a result calls … produced a new state reference, breaking
    # the structural-sharing guarantee", "violating immer's guarantee", "the same silent 'no results' footgun",
    # "making it trivial to OOM the JVM"), an assumption that does not hold ("aren't guaranteed to contain a
    # period"), a limit worked around ("Unfortunately, clap_derive can't combine …")
    r"as a (result|consequence)|breaking (?!changes?\b)|violat(es|ed|ing)|footguns?|pitfalls?|OOM|out of memory|"
    r"(is|are|was|were)(n't| not) guaranteed|unfortunately)\b",
    re.IGNORECASE,
)
# a fix whose message names an error is an error pattern; other explained fixes are gotchas
ERROR_WORDS = re.compile(
    r"\b(\w+(Error|Exception|Warning)|exceptions?|traceback|raises?|raised|errors?|segfault|crash(es|ed)?|"
    r"timeouts?|hangs?|infinite loop|panic(s|ked)?|(buffer|stack|heap|integer) overflow|overruns?|use-after-free|"
    r"out[- ]of[- ]bounds)\b"
)
# rationale: the body argues a choice (a rule alone — "must", "never" — is as often a change described)
RATIONALE_WORDS = re.compile(
    r"\b(because|rather than|we (chose|choose|decided|prefer)|in fav(ou)?r of|trade-?offs?|the reason|so that|"
    r"deliberately|intentionally|on purpose|otherwise|to avoid|to prevent|at the cost of|is safer|is faster)\b",
    re.IGNORECASE,
)
# a subject that locates its fix in the tests ("Fix integer overflows in test when run on 32bit", "fix race in the
# unit tests"): test-only work, whatever its fix words and whatever product file it also touched
IN_TESTS_SUBJECT = re.compile(
    r"\b(in|of|for|from|within|inside) (the |some |our |a |all |two |several )?(unit |integration |e2e |"
    r"end-to-end |regression )?(tests?|test ?(suite|cases?|files?|helpers?|servers?|tables?)|specs?)\b"
    r"(?=\s*($|[,.;:)]|(when|on|under|with|for|if|that|which|and|where|by|to|in)\b))",  # the phrase ends there
    re.IGNORECASE,
)
# a headline whose object is what a failure says, not how the code behaves ("Clarify error message for …", "Print more
# details in ElementsMatch", "improve error reporting if …"): the wording changed, no one falls into a trap; a headline
# that joins a fix of behaviour to it ("Fix IP fallback and improve … error messages") keeps its lesson
MESSAGE_WORDING_SUBJECT = re.compile(
    r"\b((error|failure|assert\w*|panic|exception|warning|diagnostic|log)s?\s+(message|messages|reporting|output|text|"
    r"wording)|print (more|better|clearer|the)? ?details|more (helpful|informative|descriptive|detailed) "
    r"(errors?|messages?|output)"
    # zod's "clarify infinite number errors": what an error says, reworded
    r"|(clarify|clarifies|reword|rephrase)\b[^.;]{0,50}\b(errors?|messages?|warnings?|wording)"
    r"(?!\s+(handling|recovery|propagation|paths?|cases?|codes?|types?)\b)"
    # "Suggest use of cmpopts.EquateErrors": a hint added to what a failure says; "Increase verbosity required to warn
    # about …": when a warning shows
    r"|^(suggest|recommend)s? (the )?(use|using)|(increase|decrease|raise|lower|reduce)[sd]? (the )?(verbosity|"
    r"log(ging)? level))\b",
    re.IGNORECASE,
)
# words of a headline that name no behaviour: that a fix happened, the kind of change, where it came from
NO_BEHAVIOUR_WORDS = frozenset(
    re.findall(
        r"\w+",
        "fix fixes fixed fixing bug bugs bugfix bugfixes refactor refactored refactoring align aligned aligns aligning "
        "issue issues problem problems patch patched tweak tweaks update updated updates correct corrected "
        "correction change changes changed handling regarding related relating around about various "
        "improve improves improved improving improvement improvements",
    )
)
# "align X with the contract stated in the documentation", "conform Y to the spec": the headline says the code now
# matches something, not what behaved wrongly before
ALIGN_SUBJECT = re.compile(
    r"^\s*(align|conform|harmoni[sz]e|sync(hroni[sz]e)?|reconcile)\w*\b.*\b(with|to)\b", re.IGNORECASE
)
# what went wrong, in the why of a headline that names no behaviour: a failure, or the cause of the old behaviour
# or what would not happen ("the patterns would not get initialised"); "so that it aligns with the contract", "to
# ensure it is started" say what the new code does, not what broke
WENT_WRONG = re.compile(
    rf"{FAILURE_WORDS.pattern}|\b(because|caused by|due to|previously|used to|instead of|regress\w*|bug|"
    r"would(n't| not)?|could(n't| not)|did(n't| not)|never|no longer|result(s|ed)? in|leads? to|led to|crash\w*|"
    r"errors?|exceptions?|\w+(Error|Exception))\b",
    re.IGNORECASE,
)
MIN_BEHAVIOUR_WORDS = 2  # fewer plain words besides names and fix vocabulary ("`x` bug fix", "X and Kubernetes")
# a name written as code in a headline: backticks, snake_case, camelCase, dotted or called (not a behaviour word)
CODE_NAME = re.compile(r"`[^`]*`|\b\w*(_\w*|[a-z][A-Z]\w*|\.\w+|\(\))|\b[A-Z]\w*[A-Z]\w*\b")
HEADLINE_WORD = re.compile(r"[A-Za-z][a-z]{2,}")  # a plain word of three letters or more ("and", "for" are stopwords)
STOPWORDS = frozenset(re.findall(r"\w+", "the and for with from into onto when that this its but are was has have"))


# the words that explain even in an imperative sentence (a rationale argues, a consequence warns)
STRONG_WORDS = re.compile(
    rf"\b({STRONG_CAUSE}|we (chose|choose|decided|prefer)|deliberately|intentionally|on purpose|at the cost of|"
    r"trade-?offs?)\b",
    re.IGNORECASE,
)
# what a why must say when its subject only says what was done: a cause or constraint, or what went wrong
CONSEQUENCE = re.compile(
    rf"\b({STRONG_CAUSE}|we (chose|choose|decided|prefer)|deliberately|intentionally|on purpose|"
    r"fail(s|ed|ing|ures?)?|rais(e|es|ed|ing)|throw(s|n)?|threw|crash(es|ed)?|hang(s)?|hung|leak(s|ed)?|"
    r"lose[sn]?|lost|corrupt(s|ed)?|broke|breaks|as a (result|consequence)|breaking (?!changes?\b)|"
    r"violat(es|ed|ing))\b",
    re.IGNORECASE,
)
# a subject that says what the change did to the code ("Flip conditional", "Make X a subclass", "Change res.locals to
# …"): its headline is a change log, so the lesson needs a why that names a cause, consequence or constraint
# (STRONG_WORDS), not only a description ("instead", "should")
WHAT_SUBJECT = re.compile(
    r"^\s*(add|adjust|call|change[sd]?|check|coerce|convert|copy|flip|improve[sd]?|keep|make[s]?|move|pass|read|"
    r"rewrite|rework|replace[sd]?|reset|return|reuse|set|switch|swap|tweak|update[sd]?|use[sd]?|wrap)\b",
    re.IGNORECASE,
)
# a fix too small or too routine to be part of a hot spot's pattern: self-described as trivial, syntax or call slips,
# warning-text or runtime-compatibility work (round 2's judge: "history made of trivial or vague fixes"), and a
# linter's or compiler's findings, import renames (round 4's second judge: hot spots "padded by a lint fix")
TRIVIAL_FIX = re.compile(
    r"\b(minor|small|tiny|trivial|silly|stupid|dumb|oops|little|quick|syntax|func(tion)? call|missing "
    r"(imports?|parenthes[ie]s|commas?|colons?|arguments?)|python ?[23](\.\d+)?|py[23]k?|py2|py3|pypy|compat\w*|"
    r"warnings? (message|text)|deprecation warnings?|finally|again|lint\w*|golangci\w*|staticcheck|go vet|imports?|"
    r"renam\w+|warnings|unkeyed|(code|coding) style|style (fix(es)?|issues?|nits?)|whitespace|typos?|"
    r"spelling|cosmetic\w*)\b"
    r"|\bwarning$",  # "fix ringbuffer_sink moving warning": a warning silenced, as "warnings" is
    re.IGNORECASE,
)
# a second go at a fix already made ("Better fix for #4465 - remove unnecessary erase" the day after the fix of #4465,
# "Simplify fix for #4025", "Follow-up to #12"): the same fix again, not a second fix of a pattern
FOLLOW_UP_FIX = re.compile(
    r"\b(better|simpler|simplify|simplified|proper|cleaner|another|alternative|alternate|second|real|improved?|"
    r"refined?|revised?|complete|amended|follow[- ]?up)\s+(the\s+)?(fix|patch|solution)\s+(for|of|to)\s+"
    r"(#|gh-|issue\s*#?)\d+"
    r"|\bfollow[- ]?up (to|for|of|on) (#|gh-)\d+",
    re.IGNORECASE,
)
# a revert's reason is any sentence of its body that can stand in a lesson (mine_lessons.MIN_WHY_WORDS words at
# least, no footnote, quotation, side note or question: "Broke CI." and "[1] see the thread" are none)
ANY_PROSE = re.compile(r"\w")
# what went wrong with a reverted change, in its revert's words: a failure, a regression, a break
REVERT_FAILURE = re.compile(rf"{FAILURE_WORDS.pattern}|\bregress(es|ed|ing|ions?)?\b|\bbreaking\b", re.IGNORECASE)
LINK = re.compile(r"\b(https?://\S+|refs?:)", re.IGNORECASE)  # a reference: where the reason is, not the reason
WORD = re.compile(r"[A-Za-z]{2,}")
MIN_REVERT_REASON_WORDS = 4  # "It broke uploads on Windows." gives a reason; "Ref: <link>." does not
# a test-only commit about the tests themselves (flaky, coverage, CI, fixtures) explains no product bug
TEST_INFRA_WORDS = re.compile(
    r"\b(flak(y|iness)|coverage|ci\b|continuous integration|fixtures?|mocks?|pytest|tox|nose|unittest|"
    r"test (suite|runner|setup|teardown|helpers?)|warnings? in tests?|resourcewarning|deprecationwarning|"
    r"on (windows|macos|pypy) ci|(fix(es|ed|ing)?|broken|failing) (the |some |broken |failing |flaky )?tests?)\b",
    re.IGNORECASE,
)
# what a message says when its rule holds for the whole repository (the only workspace-wide suggestions)
REPO_WIDE_RULE = re.compile(
    r"\b(always|never|must|must not|do not|don't|should not|shouldn't|avoid)\b.{0,120}"
    r"\b(anywhere|everywhere|throughout|across the (code ?base|project|repo(sitory)?|package)|"
    r"in (all|every|any) (modules?|files?|places?|code)|project-wide|repo(sitory)?-wide|code ?base-wide)\b",
    re.IGNORECASE | re.DOTALL,
)


# a headline that takes something away, and a why that argues for having it: the sentence picked explains the
# exception the change keeps, not the change ("Remove the completion cmd if alone" / "We want to have the command …")
REMOVAL_SUBJECT = re.compile(
    r"^\s*(remove[sd]?|drop(s|ped)?|delete[sd]?|disable[sd]?|hide|stop(s|ped)?)\b", re.IGNORECASE
)
# a change that takes a warning away ("Remove warning if eq is customized & order is not"): a decision about what the
# code reports, not an error that went wrong, whatever fix words its body uses ("Fixing this would require …")
REMOVES_WARNING = re.compile(
    r"^(remove[sd]?|drop(s|ped)?|delete[sd]?|silence[sd]?|suppress(es|ed)?)\s+(the |a |an |this |that )?"
    r"([\w`.-]+ ){0,2}warnings?\b",
    re.IGNORECASE,
)
KEEP_WHY = re.compile(
    r"\b(we|they|users?|you|people|programs?) (still |really )?(want|need)s? (to (have|keep|use)|the|it|this|them)\b"
    r"|\b(is|are) (still )?(useful|needed|required|wanted)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One commit: a lesson of ``type`` (``why`` explains it), or noise for ``reason``; ``fix`` counts toward hot
    spots and track records."""

    kind: VerdictKind
    type: MemoryType | None = None
    reason: Noise | None = None
    fix: bool = False
    why: str = ""
    what: str = ""  # a revert: the subject of what it undid
    error: str | None = None  # an error pattern: the error its message quotes

    @property
    def lesson(self) -> bool:
        return self.kind != VerdictKind.NOISE


def noise(reason: Noise, *, fix: bool = False) -> Verdict:
    return Verdict(VerdictKind.NOISE, reason=reason, fix=fix)


def reverted_shas(commit: CommitRecord) -> list[str]:
    """The commits a revert names in its body (``This reverts commit <sha>.``), full or abbreviated."""
    return [m.group("sha").lower() for m in REVERT_BODY_LINE.finditer(commit.body)]


def revert_target(commit: CommitRecord) -> str | None:
    """The subject a ``Revert "…"`` commit quotes, or None when it is no revert."""
    m = REVERT_SUBJECT.match(commit.subject.strip())
    return m.group("what").strip().rstrip(".") if m else None


# the subject git, GitHub and GitLab give a merge: it names a branch, not what the branch changed
MERGE_SUBJECT = re.compile(r"^\s*Merge (pull request #\d+|branch |remote-tracking branch |(?:[\w./-]+ )?into )", re.I)


def merged_title(commit: CommitRecord) -> str | None:
    """What a merge brought in, in its author's words: the pull request's title, which GitHub and GitLab write as the
    first line of a merge's body ("Merge pull request #12 from a/b" then "Retry on a closed connection"); None for
    any other commit, or a merge whose body says nothing of the kind."""
    if not commit.is_merge or not MERGE_SUBJECT.match(commit.subject):
        return None
    for line in strip_trailers(commit.body).splitlines():
        line = line.strip()
        if line:
            if REVERT_BODY_LINE.search(line) or MERGE_SUBJECT.match(line) or len(line.split()) < 2:
                return None
            return line.rstrip(".")
    return None


def code_paths(commit: CommitRecord) -> list[str]:
    """The paths that are code: not release notes, not documentation."""
    return [p for p in commit.paths() if not (CHANGELOG_PATH.search(p) or DOCS_PATH.search(p))]


def cut_headline(subject: str, body: str) -> bool:
    """The subject stops mid-sentence and the body's first line carries on with it (CUT_CONTINUATION), or the subject
    ends on a word that only joins (CUT_SUBJECT_END) and the body goes on in lower case. A lesson is left out only
    when its why is that tail (``classify``): a later whole sentence of the body still explains."""
    subject = subject.strip()
    return (
        len(subject) >= CUT_SUBJECT_MIN_CHARS
        and subject[-1] not in ".!?:)\"'"
        and body.lstrip()[:1].islower()
        and (CUT_CONTINUATION.match(body.lstrip()) is not None or CUT_SUBJECT_END.search(subject) is not None)
    )


def test_only(commit: CommitRecord) -> bool:
    """Tests (or examples) and nothing of the product: a lesson about them is no warning for product code."""
    code = code_paths(commit)
    return bool(code) and not any(is_product_path(p) for p in code)


def real_fix(subject: str) -> bool:
    """The subject names a fix of product behaviour: a fix word, and no typo, docs, typing, test, feature or
    dependency work, and more to say than "bugfix" (what hot spots and track records count)."""
    cleaned = clean_subject(subject)
    return (
        bool(FIX_SUBJECT.search(SUBJECT_REFS.sub("", " ".join(subject.split()))))  # "Fix #12: …" names a fix
        and not COSMETIC_SUBJECT.search(subject)
        and not DOCS_SUBJECT.search(subject)
        and not TYPING_SUBJECT.search(subject)
        and not TEST_SUBJECT.search(cleaned)
        and not FEATURE_SUBJECT.search(cleaned)
        and not dependency_subject(subject)
        and not vague(cleaned)
    )


def classify(commit: CommitRecord) -> Verdict:
    """One commit's verdict, by the rules above, in order: noise first, then revert, fix, rationale. Pull-request
    template lines are no part of the message; a lesson whose only why was one is ``pr-template-why``."""
    body = strip_trailers(commit.body)
    plain = strip_template(body)
    verdict = _classify(commit, plain)
    if plain != body and not verdict.lesson and _classify(commit, body).lesson:
        return noise(Noise.PR_TEMPLATE, fix=verdict.fix)
    if verdict.lesson and cut_headline(commit.subject, plain) and _opens(plain, verdict.why):
        return noise(Noise.HEADLINE_CUT, fix=verdict.fix)  # its why is the rest of the headline's sentence
    if verdict.lesson and SAME_BEHAVIOUR.search(plain):
        return noise(Noise.SAME_BEHAVIOUR)  # nothing behaved wrongly: no lesson, and no fix for a hot spot
    return verdict


def _opens(body: str, said: str) -> bool:
    """``said`` is where ``body`` begins (the same first words, however the lines were joined)."""
    return bool(said) and body.split()[:CUT_WHY_WORDS] == said.split()[:CUT_WHY_WORDS]


def strip_template(body: str) -> str:
    """The body without pull-request template lines (checkboxes, instructions to the contributor)."""
    body = HTML_COMMENT.sub("", body)
    return "\n".join(line for line in body.splitlines() if not PR_TEMPLATE_LINE.search(line)).strip()


def _revert(commit: CommitRecord, body: str, what: str, tests: bool) -> Verdict:
    if REVERT_SUBJECT.match(what):
        return noise(Noise.REAPPLIED)
    if tests:
        return noise(Noise.TEST_ONLY)
    if RELAND_WORDS.search(body):
        return noise(Noise.REVERT_TO_RELAND)
    # a sentence naming what went wrong is the reason ("… but it ended up regressing `--line-buffered`"), before
    # the story around it; a reference alone ("Ref: https://…/pull/2173#issuecomment-…") gives none
    reason = why(body, what, REVERT_FAILURE) or why(body, what, ANY_PROSE)
    if len(WORD.findall(LINK.sub("", reason))) < MIN_REVERT_REASON_WORDS:
        return noise(Noise.REVERT_NO_REASON)
    if KEPT_CHANGES.search(reason):
        kept = "\n".join(line for line in body.splitlines() if not KEPT_CHANGES.search(line))
        reason = why(kept, what, ANY_PROSE)
        if not reason:
            return noise(Noise.REVERT_KEPT)
    titles = [revert_title(s) for s in sentences(reason)]
    if all(t is not None for t in titles) and not any(content_stems(t or "") & content_stems(what) for t in titles):
        return noise(Noise.REVERT_TITLE_WHY)  # only the titles of other reverts: what they undid is not said
    return Verdict(VerdictKind.REVERT, MemoryType.DEAD_END, why=reason, what=what or "a change")


# a revert's body saying the change is not given up but comes back another way (zod 23edf48: "landed on main
# accidentally … Reverting so the change can go through a normal PR … will be re-applied via PR")
RELAND_WORDS = re.compile(
    r"\b(?:will be re-?(?:applied|landed|submitted|opened)|to re-?land\b"
    r"|re-?land(?:ed|ing)? (?:it|this|later|once|after)"
    r"|landed on (?:main|master|trunk) (?:by mistake|accidentally)|(?:accidentally|mistakenly) (?:pushed|merged|landed)"
    r"|pushed to the wrong branch"
    r"|(?:go|goes|went) through (?:a |the )?(?:normal |proper |regular )?(?:PR|pull request|review)"
    r"|temporarily revert)",
    re.IGNORECASE,
)


def revert_title(sentence: str) -> str | None:
    """What a ``Revert "…"`` sentence undid, or None when the sentence is no revert title."""
    m = REVERT_SUBJECT.match(sentence.strip())
    return m.group("what").strip().strip('."') if m and sentence.strip().lower().startswith("revert") else None


def _classify(commit: CommitRecord, body: str) -> Verdict:
    subject = commit.subject.strip()
    message = f"{subject}\n{body}"
    typing = bool(TYPING_SUBJECT.search(subject))
    tests = test_only(commit)
    is_fix = real_fix(subject) and not tests
    if commit.is_merge:
        return noise(Noise.MERGE)
    if BOT_AUTHOR.search(commit.author):
        return noise(Noise.BOT)
    if VERSION_SUBJECT.search(subject):
        return noise(Noise.VERSION)
    paths = commit.paths()
    if paths and all(CHANGELOG_PATH.search(p) for p in paths):
        return noise(Noise.CHANGELOG)
    if paths and all(DOCS_PATH.search(p) or CHANGELOG_PATH.search(p) for p in paths):
        return noise(Noise.DOCS)
    if tests and all(TOOLING_PATH.search(p) for p in code_paths(commit)):
        return noise(Noise.TOOLING_CODE)
    what = revert_target(commit)
    if what is not None:
        return _revert(commit, body, what, tests)
    if commit.giant:
        return noise(Noise.GIANT)
    formatted = FORMAT_SUBJECT.search(subject) and len(body.split()) < MIN_BODY_WORDS * 3
    if COSMETIC_SUBJECT.search(subject) or compiler_warning(subject) or formatted:
        return noise(Noise.COSMETIC)
    if typing and not (FIX_WORDS.search(body) and CAUSE_WORDS.search(body)):  # unless it found a real bug
        return noise(Noise.TYPING)
    if (dependency_subject(subject) or swaps_dependency(commit)) and not is_fix:
        return noise(Noise.DEPENDENCY)  # a library swapped: its call sites rewired teach nothing
    if REFACTOR_SUBJECT.search(subject) and not is_fix:
        return noise(Noise.REFACTOR)
    if feature(clean_subject(subject)) and not is_fix and not tests:  # "Add a test for …" is no feature
        return noise(Noise.FEATURE)
    reasons = squash_own_text(body, subject) or body  # a squash's later items give their own commits' reasons
    explained = why(reasons, subject, CAUSE_WORDS, STRONG_WORDS, faults=True)
    examples = tests and all(EXAMPLE_PATH.search(p) for p in code_paths(commit))
    if (
        TEST_INFRA_WORDS.search(subject)
        or examples
        or (tests and not (FIX_SUBJECT.search(subject) and explained and not TEST_INFRA_WORDS.search(message)))
    ):  # tests, CI or coverage work, examples; a test-only commit speaks only for the product bug its subject names
        return noise(Noise.TEST_ONLY)
    if len(body.split()) < MIN_BODY_WORDS:
        return noise(Noise.EMPTY, fix=is_fix)
    if vague(clean_subject(subject)):
        return noise(Noise.VAGUE, fix=is_fix)
    if IN_TESTS_SUBJECT.search(clean_subject(subject)):
        return noise(Noise.FIX_IN_TESTS)
    if message_wording(subject):
        return noise(Noise.MESSAGE_WORDING, fix=is_fix)  # a fix still counts on its code's hot spot
    if NOT_FIX_TYPE.match(subject) and not tests and not is_fix:  # "feat: fixes mem leak …" still names a fix
        return noise(Noise.NOT_A_FIX_TYPE)
    said = explained or why(reasons, subject, RATIONALE_WORDS, STRONG_WORDS)
    if not is_fix and not tests and reworked(clean_subject(subject), said):  # "rewrite `buffer` to use …", no fault
        return noise(Noise.REFACTOR)
    if not is_fix and not tests and offered(clean_subject(subject), said):  # "Fallback to …", "cleaner", no fault
        return noise(Noise.FEATURE)
    if not is_fix and PERFORMANCE_WORDS.search(f"{subject}\n{explained}") and not FAILURE_WORDS.search(explained):
        return noise(Noise.PERFORMANCE)
    fixes = is_fix or tests or bool(FIX_WORDS.search(message) and not DOCS_SUBJECT.search(subject) and not typing)
    named = behaviour_words(subject)
    if named == 0 or (no_behaviour(subject, named) and not WENT_WRONG.search(explained or body)):
        return noise(Noise.NO_BEHAVIOUR, fix=is_fix)
    if fixes and explained and WHAT_SUBJECT.search(clean_subject(subject)) and not CONSEQUENCE.search(explained):
        return noise(Noise.WHAT_NOT_WHY, fix=is_fix)
    if fixes and explained and only_should(explained):
        return noise(Noise.WHY_ONLY_SHOULD, fix=is_fix)
    rationale = "" if fixes and explained else why(reasons, subject, RATIONALE_WORDS, STRONG_WORDS)
    if contradicts(subject, explained if fixes and explained else rationale):
        return noise(Noise.WHY_CONTRADICTS, fix=is_fix)
    if off_topic(body, subject, explained if fixes and explained else rationale):
        return noise(Noise.WHY_OFF_TOPIC, fix=is_fix)
    if REMOVES_WARNING.match(clean_subject(subject)) and not is_fix and (explained or rationale):
        return Verdict(VerdictKind.DECISION, MemoryType.DECISION, why=explained or rationale)
    if fixes and explained:  # an error pattern quotes its error, or names one in its headline or why (not a story's)
        error = error_signature(subject, body) if ERROR_WORDS.search(message) else None
        kind = MemoryType.ERROR_PATTERN if error or ERROR_WORDS.search(f"{subject}\n{explained}") else MemoryType.GOTCHA
        return Verdict(VerdictKind.FIX, kind, fix=is_fix, why=explained, error=error)
    if rationale and is_fix:  # a fix that argues its way is a fix explained
        return Verdict(VerdictKind.FIX, MemoryType.GOTCHA, fix=True, why=rationale)
    if rationale:
        return Verdict(VerdictKind.DECISION, MemoryType.DECISION, why=rationale)
    elsewhere = reasons is not body and any(why(body, subject, w, STRONG_WORDS) for w in (CAUSE_WORDS, RATIONALE_WORDS))
    if elsewhere:  # a why only in the squash's later items: their commits', not its own
        return noise(Noise.WHY_OFF_TOPIC, fix=is_fix)
    return noise(left_without(body, subject) or Noise.NO_LESSON, fix=is_fix)


def compiler_warning(subject: str) -> bool:
    """The headline silences a compiler's warning (COMPILER_WARNING_SUBJECT) and joins no other change to it."""
    cleaned = clean_subject(subject)
    return bool(COMPILER_WARNING_SUBJECT.search(subject)) and not JOINED_CHANGE.search(cleaned)


def message_wording(subject: str) -> bool:
    """The headline changes what a failure says (MESSAGE_WORDING_SUBJECT) and joins no other change to it."""
    cleaned = clean_subject(subject)
    return bool(MESSAGE_WORDING_SUBJECT.search(cleaned)) and not JOINED_CHANGE.search(cleaned)


def left_without(body: str, subject: str) -> Noise | None:
    """Why a message has no why although a sentence of it explains: the only such sentences are about the tests, a
    note for later, a fragment or unsure of the cause. None when nothing in it explains at all."""
    found = why(body, subject, CAUSE_WORDS, STRONG_WORDS, lenient=True) or why(
        body, subject, RATIONALE_WORDS, STRONG_WORDS, lenient=True
    )
    if not found:
        return None
    said = sentences(found)
    if any(TODO_NOTE.search(s) for s in said):
        return Noise.WHY_TODO
    if any(FRAGMENT.match(s) for s in said):
        return Noise.WHY_FRAGMENT
    if any(points_back(s) for s in said):
        return Noise.WHY_ANAPHOR
    if any(UNSURE.search(s) for s in said):
        return Noise.WHY_UNSURE
    return Noise.WHY_TESTS if any(ABOUT_TESTS.search(s) for s in said) else None


def no_behaviour(subject: str, named: int | None = None) -> bool:
    """The headline names no behaviour: only that something was fixed, refactored or aligned, an issue number and
    names of code ("`excluded_unless` bug fix", "refactor fix for 593", "WatchConfig and Kubernetes"), or it aligns
    the code with something (ALIGN_SUBJECT) without saying what went wrong. ``named``: behaviour_words(subject),
    when the caller has it."""
    if named is None:
        named = behaviour_words(subject)
    return bool(ALIGN_SUBJECT.match(clean_subject(subject))) or named < MIN_BEHAVIOUR_WORDS


def behaviour_words(subject: str) -> int:
    """Plain words of the headline that could name a behaviour: not a name of code, fix vocabulary or a stopword
    (none at all: "`excluded_unless` bug fix", "refactor fix for 593" — no why rescues such a headline)."""
    plain = HEADLINE_WORD.findall(CODE_NAME.sub(" ", clean_subject(subject)))
    return sum(1 for w in plain if w.lower() not in NO_BEHAVIOUR_WORDS and w.lower() not in STOPWORDS)


def contradicts(subject: str, reason: str) -> bool:
    """The headline takes something away (REMOVAL_SUBJECT) and the why argues for having it (KEEP_WHY)."""
    return bool(reason) and bool(REMOVAL_SUBJECT.match(clean_subject(subject))) and bool(KEEP_WHY.search(reason))


def only_should(explained: str) -> bool:
    """The why's one explaining word is "should" or "shouldn't" ("a Response built from content should have elapsed
    0", "Should use the wide-string function instead of SetConsoleOutputCP", "we shouldn't deprecate this without a
    replacement"), whatever condition it holds under ("base entities should resolve if they are a prefix …"): it states
    what is expected — often of an old behaviour, or of a test — not what goes wrong otherwise. A condition in a
    sentence of its own ("if params were given as a nested hash it produced a different result") still explains."""
    said = {
        " ".join(m.group(0).lower().split())
        for sentence in split_sentences(explained)
        for m in CAUSE_WORDS.finditer(_unconditional(sentence))
    }
    return bool(said & EXPECTATION_WORDS) and said <= EXPECTATION_WORDS | {"instead"}  # "use X instead of Y": the same


def _unconditional(sentence: str) -> str:
    """A sentence that says what "should" be, without its "when"/"if": the condition it holds under is no cause."""
    return CONDITION_WORD.sub(" ", sentence) if EXPECTED.search(sentence) else sentence


def substantive_fix(subject: str) -> bool:
    """A real fix that counts toward a hot spot: not self-described as trivial, a syntax slip, compatibility work or a
    compiler's warning silenced (:func:`compiler_warning`), nor a follow-up to an earlier fix of the same issue
    (FOLLOW_UP_FIX: that fix counted already)."""
    return (
        not TRIVIAL_FIX.search(clean_subject(subject))
        and not FOLLOW_UP_FIX.search(subject)
        and not compiler_warning(subject)  # "Fixed gcc9 conversion warning": lint work, as in _classify
    )


def states_repo_wide_rule(commit: CommitRecord) -> bool:
    return bool(REPO_WIDE_RULE.search(f"{commit.subject}\n{strip_trailers(commit.body)}"))
