"""Secrets out of answers: the mask every answer and every record goes through.

:class:`dbgcore.shared.redact.Redactor` is `dbg report`'s redaction: thorough,
slow, one plain ``<redacted>``. This is the one for answers (``locals``,
``print``, stops, output, traces, histories) and the store: one pass over
an answer's JSON, cheap enough for every call, high in precision (a mask an
agent did not need hides what it debugs), each mask labelled with the rule
that made it, ``<redacted:github-token>``:

- by shape, anywhere in a string: private keys (PEM), AWS access key ids,
  GitHub, GitLab, Slack, Google, Stripe tokens, JWTs, ``Bearer``/``Basic``
  credentials, the password of ``scheme://user:PASSWORD@host``;
- by name (:func:`dbgcore.shared.redact.secret_name`: password, secret,
  token, api_key...): a variable's value (``{"name": ..., "value": ...}``),
  a value under such a JSON key, and ``NAME=VALUE``/``'NAME': 'VALUE'``
  pairs inside a string (a dict's repr, a connection string);
- and, within one answer, the text a name-masked value held wherever else
  it occurs (a password the program printed beside the local holding it).

Trivial values stay visible (:func:`trivial`): empty, None, booleans,
numbers, one or two characters, placeholders such as ``changeme``, an
object's bare ``<...>`` repr. Idempotent: what is masked already stays as
it is, so a value read back from the store and masked again is unchanged.

Pure, no I/O; :func:`reveal_wanted` alone reads the environment.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Mapping

from dbgcore.shared.globalopts import REVEAL_ENV, reveal_setting
from dbgcore.shared.jsontypes import Json
from dbgcore.shared.redact import Secrecy, argv_secrets, secret_name

MASK_HEAD = "<redacted:"
#: A value masked by name is looked for elsewhere in its answer from this length.
MIN_LEARNED = 6


_MASKS = re.compile(r"<redacted:[a-z-]+>")


def mask(label: str) -> str:
    return f"{MASK_HEAD}{label}>"


def reveal_wanted(flag: bool = False, env: Mapping[str, str] | None = None) -> bool:
    """Whether this call shows values unmasked: ``--reveal``, or DBG_REVEAL
    set to 1/true/yes in ``env`` (the caller's environment; by default this
    process's)."""
    if flag:
        return True
    return reveal_setting((os.environ if env is None else env).get(REVEAL_ENV))


#: Tokens by the shapes their providers give them, each with its label.
TOKEN_RULES: tuple[tuple[str, str], ...] = (
    ("aws-access-key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    ("gitlab-token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
)
_TOKEN_LABELS = tuple(label for label, _ in TOKEN_RULES)
# One pass for every shape; a group per rule says which matched. The first
# letters first: most strings are rejected at each character by one class.
_TOKENS = re.compile("(?=[AgxsreS])(?:" + "|".join(
    f"(?P<t{i}>{pattern})" for i, (_, pattern) in enumerate(TOKEN_RULES)) + ")")
# Its BEGIN line is kept: what kind of key it was.
_PEM = re.compile(r"(?P<head>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)"
                  r"(?!(?:\s|\\[nr])*<redacted:)"
                  r"(?:[\s\S]{0,20000}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                  r"|(?:[A-Za-z0-9+/=\s]|\\[nr])*)")
_CREDENTIAL = re.compile(r"\b(?P<scheme>[Bb]earer|BEARER|[Bb]asic|BASIC)(?P<gap>\s+)"
                         r"(?P<value>[A-Za-z0-9._~+/-]{8,}=*)")
_URL_PASSWORD = re.compile(r"(?<![A-Za-z0-9+.-])(?P<head>[A-Za-z][A-Za-z0-9+.-]*://"
                           r"[^\s/:@\"'<>]*:)(?P<value>[^\s/@\"'<>]+)(?=@)")
# The quick looks before a pattern is tried (most strings have none of
# these): what a token's shape begins with, and what a secret name holds
# somewhere (redact.secret_name decides), in lower case.
_TOKEN_HINT = re.compile(r"AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|xox|AIza|k_(?:live|test)_|eyJ")
_HINT = re.compile(r"pass|pwd|secret|token|key|auth|bearer|cookie|cred|csrf|session")
# NAME, maybe quoted, then = : or =>, then a quoted value or a bare word.
_PAIR = re.compile(r"""(?<![\w.-])(?P<nq>["']?)(?P<name>[A-Za-z_][\w.-]{0,60})(?P=nq)"""
                   r"""(?P<sep>\s*(?:=>|[:=])\s*)"""
                   r"""(?:(?P<q>b?["'])(?P<quoted>(?:[^"'\\\n]|\\.){0,2000}?)(?P=q)"""
                   r"""|(?P<bare>[^\s"',;)}\]&<>]+))""")
# What a bare secret after `NAME: ` has that a word does not.
_PROSE_SECRET = re.compile(r"^[^`*_(\[][^`]*[0-9!@#$%^&*+/=~-]")
_CODE = re.compile(r"[A-Za-z_][\w.]*(?:\(.*|\[.*)?")
#: Values that are placeholders, not secrets.
PLACEHOLDERS = frozenset({"changeme", "change-me", "change_me", "password", "secret", "token",
                          "example", "placeholder", "dummy", "test", "testing", "todo",
                          "none", "null", "nil", "undefined", "true", "false", "redacted",
                          "unset", "empty", "default", "n/a", "na"})
_NUMBER = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)[uUlLfF]*")
_QUOTES = re.compile(r"""^[bBuUrRfF]?(["'])(.*)\1$""", re.S)
#: Variables' and records' keys whose string is a secret's when their
#: ``name`` (or expression) names one.
_NAMED_KEYS = ("name", "evaluateName", "expression")
_VALUE_KEYS = frozenset({"value", "result"})


def trivial(value: str) -> bool:
    """Whether a value found under a secret name is none worth hiding:
    empty, None-like, a boolean, a number, a pointer alone, one or two
    characters, one character repeated (``****``), a placeholder
    (``changeme``), an object's repr with no text in it (``<Token object
    at 0x7f...>``, ``[Getter/Setter]``), or masked already."""
    text = value.strip()
    quoted = _QUOTES.match(text)
    inner = quoted.group(2).strip() if quoted else text
    if len(inner) <= 2 or len(set(inner)) == 1 or inner.lower() in PLACEHOLDERS:
        return True
    if MASK_HEAD in inner or (not quoted and _NUMBER.fullmatch(inner)):
        return True
    if inner in ("[]", "{}", "()", "set()", "b''", "''", '""'):
        return True
    # A debugger's word for what it did not read as text: `<Token object at
    # 0x7f...>`, node's `[Getter/Setter]` and `[Function: CryptoKey]`.
    return not quoted and (text[:1], text[-1:]) in (("<", ">"), ("[", "]")) \
        and "'" not in text and '"' not in text


@functools.lru_cache(maxsize=4096)
def _named(name: str) -> bool:
    # Names repeat (every variable row's keys, a loop's locals): asked once.
    # A name masked already (a token as a dict's key) names nothing.
    return MASK_HEAD not in name and secret_name(name) is Secrecy.EVERYWHERE


class Masking:
    """One answer's masking: :meth:`value` over its JSON, remembering the
    strings it masked by name, then :meth:`finish` masks them where else
    they occur in it."""

    def __init__(self) -> None:
        #: Texts masked by name, each to be looked for elsewhere.
        self.learned: set[str] = set()
        self.count = 0

    def text(self, text: str) -> str:
        """``text`` with every secret shape masked, and the values of the
        pairs inside it whose names say secret."""
        if len(text) < 8:
            return text
        if "PRIVATE KEY" in text:
            text = self._sub(_PEM, text, lambda m: m["head"] + mask("private-key"))
        if _TOKEN_HINT.search(text):
            text = self._sub(_TOKENS, text, self._token)
        if "earer" in text or "asic" in text or "EARER" in text or "ASIC" in text:
            text = self._sub(_CREDENTIAL, text, self._credential)
        if "://" in text:
            text = self._sub(_URL_PASSWORD, text, self._url)
        if ("=" in text or ":" in text) and _HINT.search(text.lower()):
            text = self._sub(_PAIR, text, self._pair)
        return text

    def _sub(self, pattern: re.Pattern[str], text: str,
             how: Callable[[re.Match[str]], str]) -> str:
        return pattern.sub(how, text)

    def _token(self, m: re.Match[str]) -> str:
        self.count += 1
        index = int(str(m.lastgroup)[1:])
        return mask(_TOKEN_LABELS[index])

    def _credential(self, m: re.Match[str]) -> str:
        value = m["value"]
        # `Basic python-usage` is prose; a credential has a digit, padding,
        # or mixed case past its first letter.
        if not (any(c.isdigit() for c in value) or value.endswith("=")
                or (any(c.isupper() for c in value[1:]) and any(c.islower() for c in value))):
            return m[0]
        self.count += 1
        label = "bearer-token" if m["scheme"].lower() == "bearer" else "basic-credentials"
        return m["scheme"] + m["gap"] + mask(label)

    def _url(self, m: re.Match[str]) -> str:
        value = m["value"]
        if trivial(value) or value.startswith("<"):
            return m[0]
        self.count += 1
        self._learn(value)
        return m["head"] + mask("url-password")

    def _pair(self, m: re.Match[str]) -> str:
        if not _named(m["name"]):
            return m[0]
        quoted, bare = m["quoted"], m["bare"]
        if quoted is not None:
            value = quoted
            start, end = m.span("quoted")
        else:
            value = bare
            start, end = m.span("bare")
            # `token = next_token()` is code, not a secret (a source line);
            # `Password=hunter22;`, with no space, is a setting; after `: `,
            # a word with no digit or sign is prose ("on a later pass:
            # `dbg break ...`", "auth: required").
            sep = m["sep"]
            if re.search(r"\s", sep) and (_CODE.fullmatch(value) if "=" in sep
                                          else not _PROSE_SECRET.search(value)):
                return m[0]
            if value.isidentifier() and secret_name(value):
                return m[0]  # f(password=password)
        if trivial(value):
            return m[0]
        self.count += 1
        self._learn(value)
        whole = m[0]
        return whole[:start - m.start()] + mask("secret-name") + whole[end - m.start():]

    def _learn(self, value: str) -> None:
        # Shorter ones would be found in ordinary words.
        if len(value) >= MIN_LEARNED and MASK_HEAD not in value:
            self.learned.add(value)

    def named_value(self, value: str) -> str:
        """A variable's whole value, its name being a secret's."""
        shaped = self.text(value)
        if trivial(value) or (shaped != value and trivial(_MASKS.sub("", shaped))):
            # Nothing, or a secret of a known shape: its own label says more.
            return shaped
        self.count += 1
        quoted = _QUOTES.match(value.strip())
        inner = quoted.group(2) if quoted else value
        self._learn(inner)
        # A string stays a string's repr: `'<redacted:secret-name>'`.
        quote = quoted.group(1) if quoted else ""
        return quote + mask("secret-name") + quote

    def value(self, data: Json, hidden: bool = False) -> Json:
        """``data`` masked; ``hidden``: it stands under a secret's name."""
        if isinstance(data, str):
            return self.named_value(data) if hidden else self.text(data)
        if isinstance(data, dict):
            return self._object(data)
        if isinstance(data, list):
            return self._list(data)
        return data

    def _list(self, data: list[Json]) -> list[Json]:
        # A program's arguments: the value after `--password` or in
        # `--token=VALUE` is masked as the flag's name says.
        if any(isinstance(v, str) and v.startswith("--") for v in data) \
                and all(isinstance(v, str) for v in data):
            flagged = argv_secrets(data)
            if flagged:
                return [self._flagged(v, flagged) for v in data]
        return [self.value(v) for v in data]

    def _flagged(self, arg: str, flagged: set[str]) -> str:
        flag, eq, value = arg.partition("=")
        if arg in flagged and not trivial(arg):
            self._learn(arg)
            self.count += 1
            return mask("secret-name")
        if eq and value in flagged and flag.startswith("-") and not trivial(value):
            self._learn(value)
            self.count += 1
            return flag + "=" + mask("secret-name")
        return self.text(arg)

    def _object(self, data: dict[str, Json]) -> dict[str, Json]:
        # The hot loop of every answer (a variable's row is one): strings
        # and scalars handled here, not through value().
        named = False
        for key in _NAMED_KEYS:
            held = data.get(key)
            if isinstance(held, str) and _named(held):
                named = True
                break
        out: dict[str, Json] = {}
        for k, v in data.items():
            if isinstance(v, str):
                if len(v) < 3:
                    out[k] = v  # trivial under any name
                elif (named and k in _VALUE_KEYS) or _named(k):
                    out[k] = self.named_value(v)
                else:
                    out[k] = self.text(v)
            elif isinstance(v, dict):
                out[k] = self._object(v)
            elif isinstance(v, list):
                out[k] = self._list(v)
            else:
                out[k] = v
        return out

    def finish(self, data: Json) -> Json:
        """``data`` (masked by :meth:`value`) with the texts masked by name
        replaced wherever else they occur."""
        if not self.learned:
            return data
        found = re.compile("|".join(re.escape(v) for v in
                                    sorted(self.learned, key=len, reverse=True)))
        return _replace(data, found)


def _replace(data: Json, found: re.Pattern[str]) -> Json:
    if isinstance(data, str):
        return found.sub(mask("secret-name"), data)
    if isinstance(data, dict):
        return {k: _replace(v, found) for k, v in data.items()}
    if isinstance(data, list):
        return [_replace(v, found) for v in data]
    return data


def masked(data: Json) -> Json:
    """``data`` (an answer, a record) with what looks like a secret masked."""
    masking = Masking()
    return masking.finish(masking.value(data))


def masked_text(text: str) -> str:
    """One text (an error's message, a line) masked."""
    masking = Masking()
    result = masking.finish(masking.text(text))
    assert isinstance(result, str)
    return result
