"""The mutator: reproducible from its seed, bounded, every kind of change, the valid body never touched."""

import copy
import json
import random

import pytest

from llamatest.fuzz.mutate import KINDS, Mutation, Mutator

BODY = {"prompt": "hello world", "n_predict": 4, "temperature": 0, "stop": ["\n"],
        "messages": [{"role": "user", "content": "hi"}], "logit_bias": [[2, -1]]}


def run(seed, count=300, body=BODY, **bounds):
    return list(Mutator(seed, **bounds).mutations(body, count))


def depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def parsed(mutation: Mutation):
    try:
        return json.loads(mutation.data)
    except (ValueError, RecursionError):
        return None


def test_the_same_seed_gives_the_same_mutations():
    assert run(7) == run(7)


def test_another_seed_gives_other_mutations():
    assert [m.data for m in run(7)] != [m.data for m in run(8)]


def test_the_global_random_state_changes_nothing():
    first = Mutator(3)
    second = Mutator(3)
    expected = [first.mutate(BODY) for _ in range(50)]
    got = []
    for _ in range(50):
        random.random()
        got.append(second.mutate(BODY))
    assert got == expected


def test_mutations_are_indexed_in_order():
    assert [m.index for m in run(1, count=20)] == list(range(20))


def test_the_valid_body_is_never_changed():
    body = copy.deepcopy(BODY)
    run(1, body=body)
    assert body == BODY


def test_every_kind_of_change_occurs():
    seen = {kind for m in run(1, count=500) for kind in m.kinds}
    assert seen == set(KINDS)


def test_each_mutation_says_what_it_did():
    for m in run(2, count=200):
        assert 1 <= len(m.kinds) <= 3
        assert m.detail


def test_some_bodies_stay_json_and_some_do_not():
    results = [parsed(m) is not None for m in run(1, count=300)]
    assert 0.3 < sum(results) / len(results) < 0.95


def test_some_bodies_are_not_utf8():
    def valid(m):
        try:
            m.data.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True

    assert not all(valid(m) for m in run(1, count=300))


def test_the_size_bound_holds():
    big = {"prompt": "x" * 5000, "stop": ["y" * 5000]}
    mutations = run(4, count=200, body=big, max_bytes=1024)
    assert max(len(m.data) for m in mutations) <= 1024
    assert any("cut to 1024 bytes" in m.detail for m in mutations)


def test_the_nesting_bound_holds():
    for m in run(5, count=400, max_depth=4):
        value = parsed(m)
        if value is not None:
            # The body's own 3 levels, at most 4 added by each of two "nest" changes, 2 in a random value.
            assert depth(value) <= 3 + 2 * 4 + 2, m


def test_the_string_bound_holds():
    mutator = Mutator(6, max_string=5)
    for _ in range(300):
        assert len(mutator._string(mutator.max_string)) <= 5


def test_a_body_that_is_no_object_is_refused():
    with pytest.raises(TypeError, match="must be a JSON object"):
        Mutator(1).mutate(["prompt"])


@pytest.mark.parametrize("bounds", [{"max_string": 0}, {"max_depth": 0}, {"max_bytes": 8}])
def test_bounds_must_make_sense(bounds):
    with pytest.raises(ValueError):
        Mutator(1, **bounds)


def test_an_empty_body_can_be_mutated():
    mutations = run(9, count=50, body={})
    assert len(mutations) == 50


def test_excerpt_shows_bytes_that_are_not_utf8_and_cuts():
    m = Mutation(0, ("flip",), "flip bytes at [1]", b'{\xff"a": "' + b"x" * 300 + b'"}')
    assert m.excerpt(20) == '{\\xff"a": "xxxxxxxxx… (310 bytes)'
    assert Mutation(0, (), "", b"{}").excerpt() == "{}"
