"""Tests of multitest.inputs._costs: YAML profiles, orders, normalization, combinations."""
import re

import numpy as np
import pandas as pd
import pytest

from multitest import InputError, MultitestError, load_profile, profile_from_order
from multitest.inputs import bundled_profiles

ALGS = ["c45", "mdt", "mlp", "lnp", "svl", "sv2", "svr", "5nn"]
DATA = "multitest/data/ulas2008"


@pytest.mark.parametrize("name", ["training_time", "space_complexity"])
def test_bundled_profiles_equal_the_report_tables(name, example):
    # Reference: the report's appendix tables as CSV (shared/data/ulas2008/<name>.csv).
    table = pd.read_csv(f"{DATA}/{name}.csv", index_col="dataset")
    profile = load_profile(name)
    got = profile.cost_matrix(example.datasets, ALGS)
    np.testing.assert_array_equal(got, table.loc[list(example.datasets), ALGS].to_numpy())
    assert profile.source and profile.unit and profile.description


def test_optdigits_training_time_prior_is_the_reports():
    # docs/method.md section 4: 5nn < c45 < lnp < mlp < svr < svl < sv2 < mdt on optdigits.
    costs = load_profile("training_time").cost_matrix(["optdigits"], ALGS)[0]
    assert [ALGS[i] for i in np.argsort(costs)] == ["5nn", "c45", "lnp", "mlp", "svr", "svl",
                                                      "sv2", "mdt"]


def _yaml(tmp_path, text, name="p.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_single_values_and_normalizations(tmp_path):
    text = "name: n\ncosts: {a: 2, b: 6, c: 2}\nnormalization: METHOD\n"
    expected = {"none": [2, 6, 2], "max": [1 / 3, 1, 1 / 3], "sum": [0.2, 0.6, 0.2],
                "rank": [1.5, 3, 1.5]}   # rank: average ranks of ties (scipy rankdata)
    for method, want in expected.items():
        profile = load_profile(_yaml(tmp_path, text.replace("METHOD", method)))
        np.testing.assert_allclose(profile.cost_matrix(["x", "y"], "abc"), [want, want])


def test_order_profile_and_inline_order(tmp_path):
    profile = load_profile(_yaml(tmp_path, "order: [b, c, a]\n"))
    np.testing.assert_array_equal(profile.cost_matrix(["d"], "abc"), [[2, 0, 1]])
    np.testing.assert_array_equal(profile_from_order("b, c,a").cost_matrix(["d"], "abc"),
                                  [[2, 0, 1]])
    with pytest.raises(MultitestError, match="names an algorithm twice: b"):
        profile_from_order("b,b,a")


def test_secondary_breaks_ties(tmp_path):
    _yaml(tmp_path, "costs: {a: 1, b: 3, c: 2}\n", "second.yaml")
    profile = load_profile(_yaml(tmp_path, "costs: {a: 1, b: 1, c: 0}\nsecondary: second.yaml\n"))
    keys = profile.keys(["d"], "abc")
    assert keys.shape == (2, 1, 3)
    np.testing.assert_array_equal(keys[:, 0], [[1, 1, 0], [1, 3, 2]])


def test_lexicographic_and_weighted_bundled_examples(example):
    lex = load_profile("time_then_space")
    assert [p.name for p in lex.levels] == ["time_then_space", "space_complexity"]
    np.testing.assert_array_equal(lex.cost_matrix(example.datasets, ALGS),
                                  load_profile("training_time").cost_matrix(example.datasets, ALGS))
    weighted = load_profile("time_and_space").cost_matrix(["optdigits"], ALGS)
    # Hand computation from the report's optdigits rows: each profile divided by its
    # maximum over the algorithms compared, then weighted 0.5 / 0.5.
    rows = [pd.read_csv(f"{DATA}/{name}.csv", index_col="dataset").loc["optdigits", ALGS]
            for name in ("training_time", "space_complexity")]
    expected = sum(0.5 * row.to_numpy() / row.max() for row in rows)
    np.testing.assert_allclose(weighted[0], expected)
    assert weighted[0, ALGS.index("5nn")] == pytest.approx(
        0.5 * 0.02 / 100.02 + 0.5 * 1.0)   # 5nn: fastest to train, largest model


@pytest.mark.parametrize("text, message", [
    ("costs: {a: 1, b: [2\n", r"p.yaml, row 2: malformed YAML"),
    ("costs: {a: 1, b: -2}\n", r"row 1, field 'costs.b': cost must not be negative"),
    ("costs:\n  a: 1\n  b:\n", r"row 3, field 'costs.b': missing cost"),
    ("costs:\n  a: 1\n  b: fast\n", r"row 3, field 'costs.b': cost must be a finite number"),
    # The mean over two data sets of 1.5e308 is infinite: a traceback of the JSON writer.
    ("costs:\n  a: 1\n  b: 1.5e+308\n", r"row 3, field 'costs.b': cost 1.5e\+308 is too large "
                                      r"\(at most 1e\+100: costs are summed"),
    ("costs:\n  a: 1\n  b: '1e-3'\n", r"row 3, field 'costs.b': cost must be a finite number, "
                                     r"got '1e-3'"),     # quoted: text
    ("cost: {a: 1}\n", r"row 1, field 'cost': unknown key 'cost'; valid keys are"),
    ("name: x\n", r"needs exactly one of costs, per_dataset, order"),
    ("costs: {a: 1}\nnormalization: mean\n", r"row 2, field 'normalization': normalization "
                                             r"must be one of none, max, sum, rank"),
    ("- a\n- b\n", "a cost profile must be a YAML mapping"),
    ("order: [a, b, a]\n", "names an algorithm twice"),
    ("costs: {a: 1}\nsecondary: nowhere.yaml\n", "nowhere.yaml: no such cost profile"),
    # A reference to another profile that is not text was a TypeError (a traceback).
    ("costs: {a: 1}\nsecondary: 5\n", r"row 2, field 'secondary': must name a cost profile "
                                       r"\(a file ending in .yaml or .yml, or a bundled "
                                       r"name: .*training_time.*\), got 5"),
    # Any other file was read, and an error quoted its first key (a mapping's) or line.
    ("costs: {a: 1}\nsecondary: /etc/passwd\n", r"row 2, field 'secondary': must name a "
                                                 r"cost profile .*, got '/etc/passwd'"),
    ("lexicographic: [training_time, ../notes.txt]\n",
     r"field 'lexicographic\[1\]': must name a cost profile .*, got '../notes.txt'"),
    ("lexicographic: [training_time, 5]\n", r"row 1, field 'lexicographic\[1\]': must name a "
                                            r"cost profile"),
    ("weighted:\n  - {profile: [x]}\n  - {profile: training_time}\n",
     r"row 2, field 'weighted\[0\].profile': must name a cost profile .*, got \['x'\]"),
])
def test_malformed_profiles_name_file_and_line(tmp_path, text, message):
    with pytest.raises(InputError, match=message) as info:
        load_profile(_yaml(tmp_path, text))
    assert "\n" not in str(info.value)


def test_names_that_differ_between_results_and_costs_are_listed(tmp_path):
    profile = load_profile(_yaml(tmp_path, "costs:\n  c45: 1\n  svm: 2\n"))
    with pytest.raises(InputError, match=r"row 1, field 'costs': no cost for algorithm\(s\) "
                                         r"c4.5; the profile has svm instead"):
        profile.cost_matrix(["d"], ["c45", "c4.5"])
    table = load_profile(_yaml(tmp_path, "per_dataset:\n  d1: {a: 1, b: 2}\n  d2: {a: 1}\n"))
    with pytest.raises(InputError, match=r"row 3, field 'per_dataset.d2': no cost for "
                                         r"algorithm\(s\) b"):
        table.cost_matrix(["d1", "d2"], "ab")
    with pytest.raises(InputError, match=r"no costs for data set\(s\) d3"):
        table.cost_matrix(["d1", "d3"], "a")


def test_names_that_differ_only_by_spaces_at_an_end_are_quoted(tmp_path):
    # "no cost for algorithm(s) b; the profile has b instead" hid the tab after one b.
    profile = load_profile(_yaml(tmp_path, 'costs: {a: 1, "b\\t": 2}\n'))
    with pytest.raises(InputError, match=re.escape("no cost for algorithm(s) 'b'; the profile "
                                                   "has 'b\\t' instead")):
        profile.cost_matrix(["d"], ["a", "b"])


def test_cycle_and_yaml_keys_stay_text(tmp_path):
    _yaml(tmp_path, "costs: {a: 1}\nsecondary: b.yaml\n", "a.yaml")
    _yaml(tmp_path, "costs: {a: 1}\nsecondary: a.yaml\n", "b.yaml")
    with pytest.raises(InputError, match="cycle"):
        load_profile(tmp_path / "a.yaml")
    # YAML 1.1 would read the key `no` as False and `1` as an integer.
    profile = load_profile(_yaml(tmp_path, "costs: {no: 1, 1: 2}\n"))
    np.testing.assert_array_equal(profile.cost_matrix(["d"], ["no", "1"]), [[1, 2]])


def test_numbers_with_an_exponent_are_numbers_as_in_yaml_1_2(tmp_path):
    # PyYAML (YAML 1.1) reads 1e-3 and 2.5e10 as text (a float needs a dot and a signed
    # exponent there); YAML 1.2's core schema, and a user, read numbers.  Reference: the
    # floats Python parses from the same text.
    text = "costs: {a: 1e-3, b: 2.5e10, c: 1E6, d: .5e1, e: 7, f: 1.0e+3}\n"
    profile = load_profile(_yaml(tmp_path, text))
    np.testing.assert_array_equal(profile.cost_matrix(["d"], list("abcdef")),
                                  [[1e-3, 2.5e10, 1e6, 5.0, 7.0, 1e3]])


def test_bundled_list():
    assert {"training_time", "space_complexity", "time_then_space",
            "time_and_space"} <= set(bundled_profiles())


@pytest.mark.parametrize("text, row, field, key", [
    ("name: x\ncosts: {a: 1, b: 2}\ncosts: {a: 3}\n", 3, "costs", "costs"),
    ("name: x\ncosts:\n  a: 1\n  b: 2\n  a: 3\n", 5, "costs.a", "a")])
def test_a_key_given_twice_is_refused_not_overwritten(tmp_path, text, row, field, key):
    # YAML 1.2 forbids duplicate keys; PyYAML keeps the last, which silently dropped a's
    # cost of 1 (or a whole costs mapping) and then blamed a missing algorithm.
    with pytest.raises(InputError, match=f"key '{key}' given twice") as error:
        load_profile(_yaml(tmp_path, text))
    assert (error.value.row, error.value.field) == (row, field)


def test_a_bundled_name_is_never_a_file_of_that_name(tmp_path):
    # `secondary: training_time` found a file named training_time (no .yaml) beside the
    # profile first and read it: a profile could still make the command read a file that
    # is not YAML, and quote its first key in the error.
    (tmp_path / "training_time").write_text("secret_key_line: hunter2\n")
    profile = load_profile(_yaml(tmp_path, "costs: {a: 1}\nsecondary: training_time\n"))
    assert profile.secondary.name == load_profile("training_time").name
