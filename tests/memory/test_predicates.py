"""What a memory says its anchored symbol does: subjects, polarity, passives, roles, caveats."""

from __future__ import annotations

from forewarn.memory.claims import anchor_words, read
from forewarn.memory.predicates import Predicate, Role, is_caveat, predicates


def read_predicates(text: str, symbol: str) -> tuple[Predicate, ...]:
    anchor = anchor_words(symbol)
    return predicates(read(text, anchor), anchor)


def heads(text: str, symbol: str) -> list[tuple[str, bool]]:
    return [(p.head, p.negated) for p in read_predicates(text, symbol)]


def test_the_subject_is_the_symbol_a_pronoun_or_implied() -> None:
    assert heads("UserRepo.save does not commit, the caller owns the transaction", "UserRepo.save") == [
        ("commit", True)  # "the caller owns …" is about the caller
    ]
    assert heads("inserts only; duplicates blow up", "import_rows")[0] == ("insert", False)
    assert ("return", False) in heads("get() never hits the DB on a miss, just returns None", "RedisCache.get")
    assert ("buffer", False) in heads("streaming holds, then it buffers everything in RAM", "export_csv")
    assert heads("CI test job runs on Travis", "test") == [("run", False)]


def test_advice_to_the_reader_and_other_subjects_are_no_predicates() -> None:
    assert heads("don't call session.commit() after", "UserRepo.save") == []
    assert heads("the orders queue visibility timeout is 30s", "Worker.start") == []
    assert heads("those are retried once after the delay", "Charge") == []


def test_polarity_passives_and_switches() -> None:
    [p] = read_predicates("order NOT preserved", "DeadLetter.requeue")
    assert (p.head, p.negated, p.passive, p.objects) == ("preserv", True, True, frozenset({"order"}))
    assert heads("nothing from the store is persisted", "store") == [("persist", True)]
    assert heads("shuffle is off", "DataLoader") == [("shuffl", True)]
    found = heads("handle_webhook skips signature verification", "handle_webhook")
    assert ("skip", False) in found and ("verificat", True) in found  # it does not verify


def test_objects_conditions_caveats_and_exclusivity() -> None:
    [p] = read_predicates("parse_amount raises ValueError on empty string", "parse_amount")
    assert p.objects == {"valueerror"} and p.condition == {"empty", "string"}
    [p, *_] = read_predicates("on cache miss RedisCache.get falls through to the db", "RedisCache.get")
    assert "miss" in p.condition  # the prefix before the symbol says when
    assert read_predicates("POST isn't retried unless a key is set", "with_retry")[0].restricted
    assert read_predicates("Signup only validates on submit", "Signup")[0].exclusive
    assert is_caveat(read("only for GET/PUT/DELETE tho", frozenset()))
    assert not is_caveat(read("Consumer now acks a message only after processing it", frozenset()))


def test_roles_name_what_the_symbol_uses_reads_writes_or_returns() -> None:
    def targets(text: str, symbol: str) -> set[tuple[Role, str]]:
        return {t for p in read_predicates(text, symbol) for t in p.targets}

    assert (Role.MEANS, "bcrypt") in targets("hash_password uses bcrypt cost 12", "hash_password")
    assert (Role.MEANS, "argon2id") in targets("hash_password is argon2id", "hash_password")
    assert (Role.DESTINATION, "rabbitmq") in targets("publishOrder pushes to the RabbitMQ exchange", "publishOrder")
    assert targets("connect sends a client certificate", "connect") == set()  # what it sends, not where
    assert targets("backup copies to S3 with aws cli", "backup") == {
        (Role.DESTINATION, "s3"),
        (Role.MEANS, "aws"),
    }
    assert (Role.MEANS, "rs256") in targets("signToken switched to RS256", "signToken")
    assert targets("parse_time was moved to utils/time.py", "parse_time") == set()  # where it lives
