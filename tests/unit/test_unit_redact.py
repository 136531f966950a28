"""The one redaction (dbgcore/shared/redact.py): what it masks, and as much what it
leaves alone (paths, numbers, short words, settings, dbg's own JSON)."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dbgcore.shared.redact import (
    REDACTED,
    Redactor,
    Secrecy,
    argv_secrets,
    looks_like_key,
    secret_name,
)

EVERYWHERE, IN_PLACE, NONE = Secrecy.EVERYWHERE, Secrecy.IN_PLACE, Secrecy.NONE


@pytest.mark.parametrize(("name", "secrecy"), [
    ("password", EVERYWHERE), ("DB_PASSWORD", EVERYWHERE), ("dbPassword", EVERYWHERE),
    ("DB_PASS", EVERYWHERE), ("userpass", EVERYWHERE), ("MYSQL_PWD", EVERYWHERE),
    ("passwd", EVERYWHERE), ("passphrase", EVERYWHERE), ("GITHUB_TOKEN", EVERYWHERE),
    ("authToken", EVERYWHERE), ("client_secret", EVERYWHERE), ("API_KEY", EVERYWHERE),
    ("apiKey", EVERYWHERE), ("APIKey", EVERYWHERE), ("apikey", EVERYWHERE),
    ("AWS_SECRET_ACCESS_KEY", EVERYWHERE), ("SSH_KEY", EVERYWHERE), ("auth", EVERYWHERE),
    ("Authorization", EVERYWHERE), ("OAUTH_CLIENT", EVERYWHERE), ("basic_auth", EVERYWHERE),
    ("SESSION_COOKIE", EVERYWHERE), ("credentials", EVERYWHERE), ("creds", EVERYWHERE),
    ("bearer", EVERYWHERE), ("-Dapp.keyStorePassword", EVERYWHERE),
    ("key", IN_PLACE), ("KEY", IN_PLACE), ("sort_key", IN_PLACE), ("cache_key", IN_PLACE),
    ("private", IN_PLACE),
    ("PWD", NONE), ("OLDPWD", NONE), ("author", NONE), ("GIT_AUTHOR_NAME", NONE),
    ("authority", NONE), ("keys", NONE), ("keyboard", NONE), ("monkey", NONE),
    ("hotkey", NONE), ("tokenizer", NONE), ("bypass", NONE), ("compass", NONE),
    ("passed", NONE), ("passenger", NONE), ("user", NONE), ("name", NONE), ("count", NONE),
    ("PATH", NONE), ("HOME", NONE), ("session", NONE), ("DISPLAY", NONE),
    # About a secret, not one.
    ("PASSWORD_FILE", NONE), ("passwordFile", NONE), ("auth_type", NONE), ("KEY_SIZE", NONE),
    ("TOKEN_URL", NONE), ("SECRET_NAME", NONE), ("PASSWORD_MIN_LENGTH", NONE),
    ("TOKEN_TTL", NONE), ("AUTH_HEADER", EVERYWHERE), ("KEY_ID", EVERYWHERE),
    ("KeyError", NONE), ("TokenError", NONE),
    # A file, not a variable; a property's dotted name is still one.
    ("secrets.py", NONE), ("auth.go", NONE), ("tokens.json", NONE),
    ("app.secret.key", EVERYWHERE), ("db.password", EVERYWHERE),
])
def test_which_names_say_secret(name: str, secrecy: Secrecy) -> None:
    assert secret_name(name) is secrecy


@pytest.mark.parametrize(("argv", "found"), [
    (["--password", "hunter2"], {"hunter2"}),
    (["--password=hunter2"], {"hunter2"}),
    (["-password", "hunter2"], {"hunter2"}),
    (["--api-key", "k-123", "--token=t-456", "x"], {"k-123", "t-456"}),
    (["--db-pass", "pw-1"], {"pw-1"}),
    # A flag after a flag is not its value; one-letter flags are not read.
    (["--password", "--verbose"], set()),
    (["-p", "8080", "-k", "v"], set()),
    # A file's, a folder's, a path's name is not the secret itself.
    (["--password-file", "/run/pw", "--key-path=/etc/k"], set()),
    (["--auth-type", "basic", "--key-size", "2048", "--token-url", "https://h/t"], set()),
    (["--level", "3", "--user", "bob", "--name=x"], set()),
])
def test_the_values_of_secret_flags(argv: list[str], found: set[str]) -> None:
    assert argv_secrets(argv) == found


#: Text, and the secret in it that must go.
MASKED = [
    ("password = 'Sup3rS3cret!' (str)", "Sup3rS3cret!"),
    ("db_password = 'a pass with spaces' (str)", "a pass with spaces"),
    ('{"name": "password", "value": "\'Sup3rS3cret!\'", "type": "str"}', "Sup3rS3cret!"),
    ('"{\\"name\\": \\"api_key\\", \\"value\\": \\"k-9f8e7d\\"}"', "k-9f8e7d"),
    ("{'password': 'json-pw-9911', 'user': 'bob'}", "json-pw-9911"),
    ('{"password": "json-pw-9911"}', "json-pw-9911"),
    ('\\"password\\": \\"esc-pw-771\\"', "esc-pw-771"),
    ("DB_PASS=dbpass-444 make", "dbpass-444"),
    ("token: abc-1234", "abc-1234"),
    # A pair right after another word's colon is still a pair.
    ("note:token=abc-1234", "abc-1234"), ("https://h/x?password=pw-9182&a=1", "pw-9182"),
    ("prog --password hunter2-arg --verbose", "hunter2-arg"),
    ("prog --token=tok-eq-555", "tok-eq-555"),
    ("['prog', '--password', 'hunter2-arg']", "hunter2-arg"),
    ('["--api-key", "k-12345"]', "k-12345"),
    ("Authorization: Bearer mF_9.B5f-4.1JqM", "mF_9.B5f-4.1JqM"),
    ("'Authorization': 'Basic dXNlcjpwYXNzd29yZA=='", "dXNlcjpwYXNzd29yZA=="),
    ("Authorization: token ghx_abcdef", "ghx_abcdef"),
    ("curl -H 'Authorization: Digest username=x'", "username=x"),
    ("headers bearer eyJhbGciOi.x", "eyJhbGciOi.x"),
    ("postgres://admin:outpw991@db.example/x", "outpw991"),
    ("charge sk_live_51HxYzAbCdEfGhIjKlMnOp", "sk_live_51HxYzAbCdEfGhIjKlMnOp"),
    ("rk_test_51HxYzAbCdEfGh", "rk_test_51HxYzAbCdEfGh"),
    ("gh ghp_dKLzdocJ2isAjIhKtJ0RlgLKOmxgJTeKdNnF", "ghp_dKLzdocJ2isAjIhKtJ0RlgLKOmxgJTeKdNnF"),
    ("github_pat_11ABCDEFG0123456789_abcdefghij", "github_pat_11ABCDEFG0123456789_abcdefghij"),
    ("aws AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("xoxb-123456789012-abcdefghijKLMN", "xoxb-123456789012-abcdefghijKLMN"),
    ("AIzau8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8", "AIzau8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8"),
    ("sk-proj-RIBXuDL7DxtpYlSXpfKtHF4vUCsMehGAk", "sk-proj-RIBXuDL7DxtpYlSXpfKtHF4vUCsMehGAk"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N",
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0"),
    ("token 46d3642d4384f888fe6c1983fd703b1fd9ba6e05a3470b7951f7b3e9ee7b0ded",
     "46d3642d4384f888fe6c1983fd703b1fd9ba6e05a3470b7951f7b3e9ee7b0ded"),
    ("line P0lY+SNvvl6ofme5QKEhv8+FBkTxTHsccJgDkDVnJk3FXy72jpHixIDoqugnB9FU",
     "P0lY+SNvvl6ofme5QKEhv8+FBkTxTHsccJgDkDVnJk3FXy72jpHixIDoqugnB9FU"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAAtzc2gt\n"
     "-----END OPENSSH PRIVATE KEY-----", "AAAAtzc2gt"),
    ('"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADAN\\nBgkqhkiG9w0\\n-----END PRIVATE KEY-----"',
     "BgkqhkiG9w0"),
    # Cut short, with no END line: the body to the end of the base64.
    ("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIb\nAwEHoUQDQgAE", "AwEHoUQDQgAE"),
]


@pytest.mark.parametrize(("text", "secret"), MASKED)
def test_masked_by_shape_with_nothing_known(text: str, secret: str) -> None:
    masked = Redactor().text(text)
    assert secret not in masked and REDACTED in masked, masked


@pytest.mark.parametrize("text", [
    "/usr/lib/python3.11/site-packages/dbgcore/frontends/report.py:123",
    "breakpoint 1 at /tmp/redact-play/prog.py:9 in <module>",
    "break /tmp/work/secrets.py:7", "auth.go:12: undefined: token",
    "KeyError: 'username'", "open('/etc/passwd: x')",
    "count = 42 (int)", "ready = True (bool)", "password = None (NoneType)",
    "DISABLE_AUTH=true", "password = <redacted>", 'token = ""',
    "PWD=/home/alice/src", "OLDPWD=/work/main", "GIT_AUTHOR_NAME=Alice Smith",
    "author = 'Alice'", "keyboard layout us", "tokenizer = <Tokenizer object at 0x7f2a1c>",
    "commit 02a33d9f396cbb056578dce94345a6756ef2b1c0",
    "sha256 46d3642d4384f888fe6c1983fd703b1fd9ba6e05a3470b7951f7b3e9ee7b0ded",
    "session 3f1c9a2e-8b7d-4c6e-9f0a-1b2c3d4e5f60",
    "-p 8080 -k --level 3 --user bob", "python -m pytest -q -n 0 tests/test_x.py -x",
    "--password-file /run/secrets/pw", "Basic usage: dbg start", "the Bearer authentication",
    "Basic python-usage", "bearer some_word.here", "AUTH_TYPE=basic", "--key-size 2048",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----",
    "https://example.com:8443/path?q=1", "user@example.com", "ssh://git@github.com/x/y",
    "AbstractSingletonProxyFactoryBeanImplementation", "for key, value in items:",
    '{"op": "start", "ok": true, "line": 9, "state": "stopped", "exit_code": null}',
])
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert Redactor().text(text) == text


def test_known_values_go_everywhere_in_every_escaped_form() -> None:
    secret = 'pa"ss\\wo rd-42'
    redactor = Redactor(env={"MY_PASSWORD": secret, "HOME": "/root", "MISC": "k" * 20 + "9f1a" * 5},
                        argv=["--token", "tok-1234", "--level", "3"],
                        extra_values=["plainfoo-val", "1"])
    assert redactor.known == {secret, "k" * 20 + "9f1a" * 5, "tok-1234", "plainfoo-val"}
    for form in (secret, json.dumps(secret)[1:-1], repr(secret)[1:-1],
                 json.dumps(json.dumps(secret)[1:-1])[1:-1]):
        assert redactor.text(f"x {form} y") == f"x {REDACTED} y", form
    assert redactor.text("echo plainfoo-val; level 3, tok-1234") == \
        f"echo {REDACTED}; level 3, {REDACTED}"
    # Too short to replace everywhere: it would take out every 1.
    assert redactor.text("line 1") == "line 1"


def test_what_is_learned_from_a_local_is_masked_where_no_name_says_so() -> None:
    log = ("password = 'Sup3rS3cret!' (str)\n"
           '12:00 <-- {"body": {"variables": [{"name": "apiKey", "value": "\'AK-9f8e\'"}]}}\n'
           "connect https://u:urlpw-7781@h/\n"
           "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n")
    redactor = Redactor().learn(log, {"locals": [{"name": "session_token", "value": "'st-77'"}]},
                                ["prog", "--password", "hunter2-arg"])
    assert {"Sup3rS3cret!", "AK-9f8e", "urlpw-7781", "MIIEpAIBAAKCAQEA", "st-77",
            "hunter2-arg"} <= redactor.known
    echoed = "printed Sup3rS3cret! AK-9f8e urlpw-7781 MIIEpAIBAAKCAQEA st-77 hunter2-arg"
    assert redactor.text(echoed) == "printed" + f" {REDACTED}" * 6


def test_a_plain_key_or_code_is_hidden_in_place_but_not_looked_for_everywhere() -> None:
    log = ("key = 'name' (str)\nauth = 'password' (str)\n"
           "token = request.headers (str)\n")
    redactor = Redactor().learn(log)
    assert redactor.known == set()
    assert redactor.text(log) == (f"key = '{REDACTED}' (str)\nauth = '{REDACTED}' (str)\n"
                                  f"token = {REDACTED} (str)\n")
    assert redactor.text('{"name": "bob", "op": "password"}') == '{"name": "bob", "op": "password"}'


def test_json_keeps_its_shape_and_loses_its_secrets() -> None:
    redactor = Redactor(extra_values=["12345678"])
    data = {"op": "start", "ok": True, "line": 9, "exit_code": None, "pin": 12345678,
            "args": {"env": {"API_TOKEN": "t-1", "FOO": "plain"},
                     "credentials": {"user": "bob", "ids": [1, 2]}},
            "locals": [{"name": "password", "value": "'x'", "type": "str"},
                       {"name": "count", "value": "42", "type": "int"}],
            "printed": {"expression": "db_password", "result": "'pw'"}}
    assert redactor.value(data) == {
        "op": "start", "ok": True, "line": 9, "exit_code": None, "pin": REDACTED,
        "args": {"env": {"API_TOKEN": REDACTED, "FOO": "plain"},
                 "credentials": {"user": REDACTED, "ids": [REDACTED, REDACTED]}},
        "locals": [{"name": "password", "value": REDACTED, "type": "str"},
                   {"name": "count", "value": "42", "type": "int"}],
        "printed": {"expression": "db_password", "result": REDACTED}}


def test_what_is_not_json_is_masked_as_its_text() -> None:
    redactor = Redactor(extra_values=["hunter2-arg"])
    assert redactor.value({"args": b"--password hunter2-arg"}) == {
        "args": f"b'--password {REDACTED}'"}


def test_key_like_values_of_no_secret_name() -> None:
    assert looks_like_key("k" * 20 + "93f1a7c2b8e4d6f0a1b2")
    assert looks_like_key("ghp_" + "Zq8" * 12)
    assert not looks_like_key("/tmp/pytest-of-root/pytest-7/test_none_of_27_planted0/home")
    assert not looks_like_key("/etc/ssl/certs/ca-certificates.crt")
    assert not looks_like_key("528.0.0")


#: No deadline: a loaded CI machine is slow, not wrong. The words have no
#: k, p, s or t, so no secret name but "bearer" (a JSON key of that name is
#: one, so the keys leave it out).
UNTIMED = settings(deadline=None)
_WORDS = st.text("abcdefghijlmnoqruvwxyz0123456789", min_size=1, max_size=12)


@UNTIMED
@given(st.lists(_WORDS, min_size=1, max_size=8), st.integers(0, 10**9))
def test_paths_and_line_numbers_are_never_masked(parts: list[str], line: int) -> None:
    # Letters of no secret word (no k, p, s, t): what is left is ordinary.
    text = "/" + "/".join(parts) + f".py:{line} at line {line}"
    assert Redactor().text(text) == text


@UNTIMED
@given(st.recursive(st.none() | st.booleans() | st.integers() | _WORDS,
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(_WORDS.filter(lambda w: w != "bearer"), inner,
                                      max_size=4), max_leaves=20))
def test_json_with_no_secret_comes_back_as_it_was(data: object) -> None:
    assert Redactor().value(data) == data


@UNTIMED
@given(st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#$%^&*-_.~",
               min_size=6, max_size=40))
def test_a_known_secret_goes_wherever_it_is_echoed(secret: str) -> None:
    assume(secret not in REDACTED and secret.lower() not in ("undefined",))
    redactor = Redactor(extra_values=[secret])
    for text in (f"echo {secret}!", json.dumps({"out": f"said {secret}"}), repr([secret])):
        assert secret not in redactor.text(text), text


@pytest.mark.parametrize(("text", "secret"), MASKED)
def test_masking_twice_is_masking_once(text: str, secret: str) -> None:
    # An answer masked by the daemon may be masked again by a report.
    once = Redactor().text(text)
    assert Redactor().learn(once).text(once) == once
