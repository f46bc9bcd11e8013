"""transpile/cuda/quote.py: a name spelled inside a C++ comment or string
literal stays inside it, and the literal reads back as the name."""

import os
import re

from hypothesis import given
from hypothesis import strategies as st

from kdsl.transpile.cli.work import python_lines
from kdsl.transpile.cuda.quote import comment, string_literal, string_value

# what a file name can be: any str os.fsdecode makes from bytes (a lone
# DC80..DCFF surrogate stands for a byte that is not UTF-8)
names = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",))),
    st.binary().map(os.fsdecode),
)
LITERAL = re.compile(r'"(?:[^"\\\n]|\\(?:[0-7]{3}|[ntrvfab\\"?]))*"')


@given(names)
def test_a_comment_is_one_printable_line_that_cannot_end_early(text):
    spelled = comment(text)
    assert spelled.isprintable()  # no newline, no line separator
    assert "*/" not in spelled and "??" not in spelled
    assert not spelled.endswith("\\") or spelled.endswith("\\\\")


@given(names)
def test_a_string_literal_reads_back_as_the_text(text):
    spelled = string_literal(text)
    assert LITERAL.fullmatch(spelled), spelled
    assert spelled.isprintable() and "??" not in spelled
    assert string_value(spelled) == text


def test_file_names_read_back_from_their_bytes():
    raw = b'k\xff\xfe\n"x\\.py'
    name = os.fsdecode(raw)
    assert string_literal(name) == '"k\\377\\376\\n\\"x\\\\.py"'
    assert os.fsencode(string_value(string_literal(name))) == raw


def test_ordinary_names_are_unchanged():
    for name in ["kernels.py", "my kernels (v2).py", "caf\u00e9.py", "a?b.py"]:
        assert comment(name) == name
        assert string_literal(name) == f'"{name}"'


def test_the_spellings():
    assert comment("a*/b") == "a*\\/b"
    assert comment('q"\\') == 'q"\\\\'
    assert comment("??=x???") == "?\\?=x?\\?\\?"
    assert comment("\u2028\x00") == "\\342\\200\\250\\000"
    assert string_literal("\x011") == '"\\0011"'  # three digits: '1' stays a '1'
    assert string_value('"\\0011"') == "\x011"


def test_nvrtc_locations_map_back_through_escaped_directives():
    name = 'k\n"q".py'
    directed = "\n".join(
        ["void f() {", "    // x = 1", f"#line 7 {string_literal(name)}", "    x = 1;"]
    )
    assert python_lines(directed) == [None, None, (name, 7)]
