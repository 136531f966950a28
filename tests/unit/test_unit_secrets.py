"""The answers' mask (dbgcore/shared/secrets.py): each rule and its label,
what it leaves alone (paths, digests, addresses, code, dbg's own words,
trivial values), and that masking twice changes nothing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dbgcore.shared.secrets import masked, masked_text, reveal_wanted, trivial

GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize(("text", "shown"), [
    ("AKIA" + "Q3EXAMPLE7KEYID0", "<redacted:aws-access-key>"),
    ("token " + GITHUB, "token <redacted:github-token>"),
    ("github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuv", "<redacted:github-token>"),
    ("glpat-" + "x9Y8z7W6v5U4t3S2r1Q0", "<redacted:gitlab-token>"),
    ("xoxb-" + "123456789012-abcdefABCDEF", "<redacted:slack-token>"),
    ("AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "<redacted:google-api-key>"),
    ("sk_live_" + "51Hx2Yz3Ab4Cd5Ef6Gh7Ij8Kl", "<redacted:stripe-key>"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJlLW5vdA", "<redacted:jwt>"),
    ("Authorization: Bearer tk3Qz9LmW2pXa7Rb", "Authorization: Bearer <redacted:bearer-token>"),
    ("Basic dXNlcjpwYXNzd29yZA==", "Basic <redacted:basic-credentials>"),
    ("postgres://app:Pg5ecretW0rd@db:5432/x", "postgres://app:<redacted:url-password>@db:5432/x"),
    ("Server=db;User Id=sa;Password=Dsn5ecret9;",
     "Server=db;User Id=sa;Password=<redacted:secret-name>;"),
    ("{'user': 'bob', 'password': 'hunter22'}",
     "{'user': 'bob', 'password': '<redacted:secret-name>'}"),
    ('{"api_key": "k-7f3a9c1e5b"}', '{"api_key": "<redacted:secret-name>"}'),
    ("login ok, password: hunter22", "login ok, password: <redacted:secret-name>"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
     "-----BEGIN RSA PRIVATE KEY-----<redacted:private-key>"),
    ("'-----BEGIN PRIVATE KEY-----\\nMIIEowIBAAKCAQEAv3Fq0mZ2Yk1hO9x... (cut)",
     "'-----BEGIN PRIVATE KEY-----<redacted:private-key>... (cut)"),
])
def test_each_rule_masks_with_its_label(text: str, shown: str) -> None:
    assert masked_text(text) == shown


@pytest.mark.parametrize("text", [
    "/home/user/project/secrets/token_store.py",
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "123e4567-e89b-12d3-a456-426614174000",
    "<function connect at 0x7f5a78e34720>",
    "token = next_token()",
    "f(password=password)",
    "sort_key = 'name'",
    "Basic python-usage",
    "https://example.com/path?q=1",
    "password: <redacted:secret-name>",
    "def login(user, password, token):",
    "if not token: raise ValueError('no token')",
    "keys = {'id': 1, 'name': 'x'}",
    "breakpoint 1 at cart.py:12 (requested line 11)",
    "git@github.com:owner/repo.git",
    "to stop there on a later pass: `dbg break ledger.py:47` then `dbg continue`",
    "auth: required",
])
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert masked_text(text) == text


def test_a_variable_named_as_a_secret_is_masked_unless_trivial() -> None:
    rows = [{"name": "password", "value": "'hunter22'", "type": "str"},
            {"name": "token", "value": f"'{GITHUB}'"},
            {"name": "api_key", "value": "None"}, {"name": "secret", "value": "''"},
            {"name": "db_password", "value": "'changeme'"}, {"name": "auth_token", "value": "0"},
            {"name": "session_token", "value": "<Token object at 0x7f00>"},
            {"name": "count", "value": "42"}, {"name": "password_file", "value": "'/etc/pw'"}]
    assert [row["value"] for row in masked(rows)] == [
        "'<redacted:secret-name>'", "'<redacted:github-token>'", "None", "''", "'changeme'",
        "0", "<Token object at 0x7f00>", "42", "'/etc/pw'"]


def test_a_numbered_key_and_a_class_named_key_mask_nothing_elsewhere() -> None:
    # gdb lists a Rust map as key0, val0...; node's globals hold the class
    # CryptoKey beside `process`, both shown as [Getter/Setter].
    rows = [{"name": "key0", "value": '"kiwi"'}, {"name": "val0", "value": "3"},
            {"name": "CryptoKey", "value": "[Getter/Setter]"},
            {"name": "process", "value": "[Getter/Setter]"}]
    assert masked(rows) == rows


def test_a_programs_secret_flags_are_masked() -> None:
    argv = ["--password", "hunter22", "--token=tok-eq-555", "--verbose", "--level", "3"]
    assert masked({"args": argv}) == {"args": [
        "--password", "<redacted:secret-name>", "--token=<redacted:secret-name>", "--verbose",
        "--level", "3"]}


def test_a_print_of_a_secret_name_and_its_text_elsewhere_are_masked() -> None:
    answer = {"expression": "password", "value": "'hunter22'", "type": "str",
              "output": "connecting with hunter22"}
    assert masked(answer) == {"expression": "password", "value": "'<redacted:secret-name>'",
                              "type": "str", "output": "connecting with <redacted:secret-name>"}


@pytest.mark.parametrize(("value", "is_trivial"), [
    ("", True), ("''", True), ("None", True), ("x", True), ("'x'", True), ("'****'", True),
    ("'changeme'", True), ("42", True), ("0x0", True), ("[]", True),
    ("[Getter/Setter]", True), ("[Function: CryptoKey]", True),
    ("'hunter22'", False), ("'abc'", False), ("0x5555 \"hunter22\"", False),
    ("['hunter22']", False),
])
def test_trivial(value: str, is_trivial: bool) -> None:
    assert trivial(value) is is_trivial


def test_reveal_wanted() -> None:
    assert reveal_wanted(True, {}) and not reveal_wanted(False, {})
    assert reveal_wanted(False, {"DBG_REVEAL": "1"}) and reveal_wanted(False, {"DBG_REVEAL": "yes"})
    assert not reveal_wanted(False, {"DBG_REVEAL": "0"})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40)
    | st.sampled_from([GITHUB, "password=hunter22", "'hunter22'", "https://u:pw123456@h/"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["name", "value", "password", "token", "x"]), inner, max_size=4),
    max_leaves=12)


@given(JSON)
def test_masking_twice_changes_nothing(data: object) -> None:
    once = masked(data)
    assert masked(once) == once
