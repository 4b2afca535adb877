"""The command-line value types shared by the flashio subcommands reject bad values with a message that
says what was expected and what came."""

import argparse

import pytest

from flashio.cli_types import fraction, positive_float, positive_int, probability


@pytest.mark.parametrize("parse,good,value", [(positive_int, "16", 16), (positive_float, "0.5", 0.5),
                                              (probability, "0", 0.0), (fraction, "1", 1.0)])
def test_a_valid_value_is_converted(parse, good, value):
    assert parse(good) == value


@pytest.mark.parametrize("parse,bad,expected", [
    (positive_int, "0", "a positive integer"), (positive_int, "2.5", "a positive integer"),
    (positive_float, "-1", "a positive number"), (probability, "1", "a dropout probability in [0, 1)"),
    (probability, "x", "a dropout probability"), (fraction, "0", "a block-sparse fraction in (0, 1]"),
])
def test_a_bad_value_names_what_was_expected_and_what_came(parse, bad, expected):
    with pytest.raises(argparse.ArgumentTypeError) as error:
        parse(bad)
    assert expected in str(error.value) and repr(bad) in str(error.value)
