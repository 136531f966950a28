"""Secrets out of text and JSON: one redaction, for `dbg report` and any answer.

A :class:`Redactor` masks a secret in two ways. By what it *knows*: values
gathered up front (dbg's environment variables whose names say secret, every
``--env`` value of the session, the argument after a secret-looking flag) and
values it :meth:`~Redactor.learn` from what it is about to mask (the value
next to a secret-looking name, a URL's password, the lines of a private key).
Each is replaced wherever it occurs, also as JSON or a Python repr escapes
it: a password a program printed is found in its output even where no name
says what it is. And by *shape*, with no knowledge: ``NAME=VALUE``-like pairs
with a secret-looking NAME, ``--flag VALUE`` after such a flag, Authorization
headers and ``Bearer``/``Basic`` credentials, ``scheme://user:PASSWORD@``,
PEM private-key bodies, provider tokens (:data:`TOKEN_SHAPES`), long random
strings.

Which names say secret is :func:`secret_name`. A name that only says "key"
(``key``, ``sort_key``, ``cache_key``: most are a dict's) or "private" hides
its value in place only, never everywhere: a loop's ``key = 'name'`` would
otherwise take the word ``name`` out of every file.

It is pure: no I/O, no state but what it was built with; :meth:`learn`
returns a new Redactor.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from enum import IntEnum

from dbgcore.shared.jsontypes import Json

REDACTED = "<redacted>"
#: Known values shorter than this are not replaced everywhere (they would
#: take out half the words); next to a secret name they are still hidden.
MIN_SECRET = 4
#: Values that are settings, not secrets (DISABLE_AUTH=true): replaced
#: everywhere they would take out JSON's own words too.
NOT_SECRET = frozenset({"true", "false", "null", "none", "nil", "undefined", "yes", "no",
                        REDACTED.lower()})
#: Tokens by the shapes their providers give them: what each is, and its pattern.
TOKEN_SHAPES: tuple[tuple[str, str], ...] = (
    ("Stripe secret or restricted key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}"),
    ("Stripe webhook secret", r"\bwhsec_[0-9A-Za-z]{20,}"),
    ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
    ("AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("Slack token", r"\b(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,}"),
    ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("OpenAI or Anthropic key", r"\bsk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}"),
    ("JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ("npm token", r"\bnpm_[A-Za-z0-9]{36}"),
    ("PyPI token", r"\bpypi-[A-Za-z0-9_-]{50,}"),
    ("SendGrid key", r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
)
_SHAPES = re.compile("|".join(f"(?:{pattern})" for _, pattern in TOKEN_SHAPES))


class Secrecy(IntEnum):
    """What a name says about its value."""

    NONE = 0
    #: Hidden where it stands, not looked for elsewhere (``key``).
    IN_PLACE = 1
    #: Hidden, and looked for everywhere.
    EVERYWHERE = 2


# A name's words: snake, kebab, dotted and camelCase all split (APIKey: API, Key).
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SECRET_PARTS = ("PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "TOKEN", "CREDENTIAL",
                 "COOKIE", "APIKEY", "PRIVKEY", "PRIVATEKEY", "ACCESSKEY", "SECRETKEY")
_SECRET_WORDS = frozenset({"PASS", "PWD", "PASSCODE", "CREDS", "BEARER", "AUTH", "AUTHN", "AUTHZ",
                           "AUTHORIZATION", "OAUTH", "SESSIONID", "CSRF", "XSRF"})
# Words that hold a secret's letters and are not one.
_NOT_SECRET_WORDS = frozenset({"BYPASS", "COMPASS", "ENCOMPASS", "SURPASS", "TRESPASS",
                               "OVERPASS", "UNDERPASS", "MONKEY", "DONKEY", "TURKEY", "HOCKEY",
                               "JOCKEY", "WHISKEY", "HOTKEY", "TOKENIZER", "TOKENIZE",
                               "TOKENIZED", "TOKENIZERS"})
# A name ending in one of these is about a secret, not one: PASSWORD_FILE
# names a path, AUTH_TYPE a scheme, KEY_SIZE a number, TOKEN_TTL a time,
# KeyError a Python exception (`KeyError: 'user'` in a traceback).
_ABOUT_WORDS = frozenset({"FILE", "PATH", "DIR", "TYPE", "KIND", "MODE", "METHOD", "SIZE",
                          "LENGTH", "LEN", "BITS", "SCHEME", "URL", "URI", "NAME", "FORMAT",
                          "ALGORITHM", "ALG", "FIELD", "PROMPT", "POLICY", "PROVIDER",
                          "ENABLED", "REQUIRED", "EXPIRY", "EXPIRES", "TTL", "TIMEOUT",
                          "COUNT", "LIFETIME", "ERROR", "EXCEPTION", "WARNING", "HANDLER",
                          "MANAGER", "CLASS"})
# A file's name, not a variable's: `secrets.py:7` is a place in a program.
_FILE_NAME = re.compile(
    r"(?i)\.(?:py|pyi|pyc|js|mjs|cjs|ts|tsx|jsx|go|rs|c|h|cc|cpp|hpp|cxx|java|kt|class|jar"
    r"|rb|pl|pm|php|sh|txt|json|ya?ml|toml|ini|cfg|conf|md|rst|log|html|css|xml|csv|so|o|exe)$")
# What every secret name holds somewhere: a quick look before the words'.
# (The lookahead on the first letter first: five times faster over a log
# than trying each word at each character.)
_HINT = re.compile(r"(?=[pPsStTkKaAbBcCxX])(?i:p(?:ass|wd|rivate)|s(?:ecret|ession)|token|key"
                   r"|auth|bearer|c(?:ookie|red|srf)|xsrf)")
# The shell's working folders, not passwords.
_NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD"})
# "key" beside these words is a dict's, a table's or a cache's key.
_PLAIN_KEY_WORDS = frozenset({"SORT", "CACHE", "PRIMARY", "FOREIGN", "DICT", "MAP", "HASH",
                              "LOOKUP", "PARTITION", "ROW", "INDEX", "COLUMN", "GROUP", "SHARD",
                              "UNIQUE", "COMPOSITE", "NATURAL", "DEDUP"})


def secret_name(name: str) -> Secrecy:
    """What ``name`` (an environment variable, a local, a flag, a JSON key)
    says of its value: PASSWORD, PASSWD, PASS, PWD, PASSPHRASE, SECRET,
    TOKEN, BEARER, AUTH (not AUTHOR), COOKIE, CREDENTIAL, CREDS, API_KEY-like KEY
    names hide it everywhere; a bare ``key`` or ``private``, or a sort,
    cache, dict... key, only where it stands. A name that ends in a word
    about the secret (PASSWORD_FILE, AUTH_TYPE, KEY_SIZE, TOKEN_URL: see
    ``_ABOUT_WORDS``) is not one."""
    if not _HINT.search(name) or name.upper() in _NOT_SECRET_NAMES or _FILE_NAME.search(name):
        return Secrecy.NONE
    # A number in a name says which, not what: `key0` is a map's first key.
    words = [w.upper() for w in _WORDS.findall(name) if not w.isdigit()]
    if len(words) > 1 and words[-1] in _ABOUT_WORDS:
        return Secrecy.NONE
    found = Secrecy.NONE
    for word in words:
        if word in _NOT_SECRET_WORDS:
            continue
        if (word in _SECRET_WORDS or any(part in word for part in _SECRET_PARTS)
                or word.endswith(("PASS", "PWD", "AUTH"))
                or (word.startswith("AUTH") and not word.startswith("AUTHOR"))
                or word.startswith("AUTHORIZ")):
            return Secrecy.EVERYWHERE
        if word.endswith("KEY"):
            plain = word == "KEY" and (len(words) == 1 or _PLAIN_KEY_WORDS & set(words))
            found = max(found, Secrecy.IN_PLACE if plain else Secrecy.EVERYWHERE)
        elif word == "PRIVATE":
            found = max(found, Secrecy.IN_PLACE)
    return found


_LONG_KEYLIKE = re.compile(r"^[A-Za-z0-9+/_=-]{32,}$")


def looks_like_key(value: str) -> bool:
    """Whether ``value``, with no name to go by, has a key's shape: a
    provider's token, or a long unbroken run of letters and digits."""
    if _SHAPES.search(value):
        return True
    if value.startswith(("/", "~/", "./", "../")):
        return False  # a path: its letters and digits are folders' names
    return bool(_LONG_KEYLIKE.match(value)) and any(c.isdigit() for c in value) \
        and any(c.isalpha() for c in value)


def may_hide(value: str) -> bool:
    """Whether a known value is worth replacing everywhere."""
    return len(value.strip()) >= MIN_SECRET and value.strip().lower() not in NOT_SECRET


# --- shapes masked in place -------------------------------------------------

# A name worth looking at twice, then what joins it to its value: `=`, `:`,
# `=>`, quoted as in JSON or a repr, or escaped once more inside a JSON log line.
# Only a word with a secret word in it is tried (see _pairs), so `https://...`
# is no pair that swallows the one after it, and a long log is read in one pass.
_NAME = r"(?<![\w./-])(?P<name>-{0,2}[A-Za-z_][\w.-]*+)"
_PAIR = re.compile(_NAME + r"""(?P<sep>\\*["']?\s*(?:=>|[:=])\s*(?P<q>\\*["'])?)"""
                   r"""(?P<value>(?(q)(?:[^"'\\\n]|\\[^"'\n])*|[^\s"',;}\]\\)&<>]+))""")
# `--password VALUE` and the same flag in an argument list's repr or JSON.
_FLAG = re.compile(r"""(?<![\w-])(?P<name>--?[A-Za-z][\w-]*)(?P<sep>[ \t]+|\\*["']\s*,\s*\\*["'])"""
                   r"""(?P<value>[^\s"'\\,\]-][^\s"'\\,\]]*)""")
# An Authorization header's value, whatever its scheme.
_AUTH_HEADER = re.compile(
    r"""(?=[aApP])(?i:(?P<head>\b(?:proxy-)?authorization\\*["']?\s*[:=]\s*\\*["']?"""
    r"""(?:(?:bearer|basic|digest|token|negotiate|ntlm|apikey|hmac)\s+)?)"""
    r"""(?P<value>[^\s"'\\,;]+))""")
# `Bearer xxx` and `Basic xxx` anywhere: xxx must look like a credential.
_SCHEME = re.compile(r"\b(?P<head>(?:Bearer|Basic|bearer|basic|BEARER|BASIC)\s+)"
                     r"(?P<value>[A-Za-z0-9._~+/=-]{8,})")
# scheme://user:PASSWORD@host: the password, up to the @ of the host.
_URL_PASSWORD = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*+://"
                           r"[^\s/:@\"'<>]*:(?P<value>[^\s/@\"'<>]+)@")
# A private key's PEM block; its body up to the END line, or (cut short) the
# base64 run that follows, with line breaks raw or escaped.
_PEM = re.compile(r"(?P<head>-----BEGIN (?P<kind>[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----)"
                  r"(?P<body>(?:[\s\S]{0,20000}?(?=-----END [A-Z0-9 ]*-----))"
                  r"|(?:[A-Za-z0-9+/=:,\s-]|\\[nr])+)")
# A long random-looking run beside a secret word (`token 9f86d081...`).
_NEAR_WORD = re.compile(r"(?=[sStTkKpPaAcC])(?i:(?P<head>(?:secret|token|key|passw(?:or)?d|pwd"
                        r"|auth|credential|api)"
                        r"\w*+\W{1,3}(?:is\s+|of\s+)?)(?P<value>[A-Za-z0-9+/_-]{20,}={0,2}))")
# A long random-looking run anywhere: a key's line, a secret with no name.
_RANDOM_RUN = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+_-][A-Za-z0-9+/_-]{39,}={0,2}"
                         r"(?![A-Za-z0-9+/_=-])")
# A variable as a DAP adapter or dbg records it: {"name": "password", "value": "..."};
# and the same once more escaped, inside a JSON string of a log line.
_NAMED_VALUE = re.compile(r'(?P<head>"name":\s*"(?P<name>[^"\\]{1,200})",\s*"value":\s*")'
                          r'(?P<value>(?:[^"\\]|\\.)*)')
_NAMED_VALUE_ESCAPED = re.compile(
    r'(?P<head>\\"name\\":\s*\\"(?P<name>[^"\\]{1,200})\\",\s*\\"value\\":\s*\\")'
    r'(?P<value>(?:[^"\\]|\\[^"])*)')
# An unquoted value that is code (`token = request.headers`), not a secret:
# hidden where it stands, but not looked for everywhere.
_CODE = re.compile(r"[A-Za-z_][\w.]*\(?")
_NOT_PAIR_NAMES = frozenset({"authorization", "proxy-authorization"})


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _random(value: str, least: float) -> bool:
    """Letters and digits mixed, in an order no word or hex digest has."""
    return (any(c.isdigit() for c in value) and any(c.islower() for c in value)
            and any(c.isupper() for c in value) and _entropy(value) >= least)


def _credential(value: str) -> bool:
    """After `Bearer `: a credential, not a word (`Basic python-usage`)."""
    return any(c.isdigit() for c in value) or value.endswith("=") or \
        (any(c.isupper() for c in value[1:]) and any(c.islower() for c in value))


def _flag_secrecy(flag: str) -> Secrecy:
    name = flag.lstrip("-")
    if len(name) < 3:
        return Secrecy.NONE
    return secret_name(name)


def _unquoted(value: str) -> list[str]:
    """A value as recorded (`'Sup3r'`, a repr; `"x\\"y"`, JSON) and the
    string it stands for."""
    found = [value]
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" and len(text) < 10_000:
        found.append(text[1:-1])
        try:
            decoded = ast.literal_eval(text) if text[0] == "'" else json.loads(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            decoded = None
        if isinstance(decoded, str):
            found.append(decoded)
    return found


class Redactor:
    """Masks secrets in text and JSON; see the module docstring.

    :param env: dbg's own environment: the values of names that
        :func:`secret_name` calls secret, and values shaped like keys.
    :param argv: the program's arguments: the value after each secret flag
        (``--password VALUE``, ``--password=VALUE``).
    :param extra_values: values secret whatever their name (``--env`` values).
    """

    def __init__(self, env: Mapping[str, str] | None = None, argv: Sequence[str] = (),
                 extra_values: Iterable[str] = ()) -> None:
        known = set(extra_values)
        for name, value in (env or {}).items():
            if secret_name(name) or looks_like_key(value):
                known.add(value)
        known.update(argv_secrets(argv))
        self._known = frozenset(v for v in known if may_hide(v))
        self._pattern = _alternation(self._known)

    @property
    def known(self) -> frozenset[str]:
        """Every value replaced wherever it occurs (unescaped)."""
        return self._known

    def learn(self, *sources: Json) -> Redactor:
        """A Redactor that also knows the secrets found in ``sources``
        (text, or JSON-shaped data holding text)."""
        found: set[str] = set()
        for source in sources:
            _learn(source, found)
        # A value that is itself a secret's name (`auth = 'password'`)
        # would take that name out of every file, and the pairs with it.
        # One masked already holds what is left of its secret, no more.
        found = {v for v in found if may_hide(v) and REDACTED not in v
                 and not (v.isidentifier() and secret_name(v))}
        return Redactor(extra_values=self._known | found)

    def text(self, text: str) -> str:
        """``text`` with every secret masked."""
        text = _PEM.sub(lambda m: m["head"] + REDACTED, text)
        if self._pattern is not None:
            text = self._pattern.sub(REDACTED, text)
        text = _AUTH_HEADER.sub(_masked_value, text)
        text = _SCHEME.sub(lambda m: m["head"] + REDACTED if _credential(m["value"])
                           else m[0], text)
        for named in (_NAMED_VALUE, _NAMED_VALUE_ESCAPED):
            text = named.sub(lambda m: _masked_value(m) if secret_name(m["name"]) else m[0],
                             text)
        text = _sub_pairs(text)
        text = _FLAG.sub(lambda m: _masked_value(m) if _flag_secrecy(m["name"]) else m[0], text)
        text = _URL_PASSWORD.sub(lambda m: m[0].replace(":" + m["value"] + "@",
                                                        ":" + REDACTED + "@"), text)
        text = _SHAPES.sub(REDACTED, text)
        text = _NEAR_WORD.sub(lambda m: m["head"] + REDACTED if _random(m["value"], 3.0)
                              or re.fullmatch(r"[0-9a-fA-F]{32,}", m["value"]) else m[0], text)
        return _RANDOM_RUN.sub(lambda m: REDACTED if _random(m[0], 4.3) else m[0], text)

    def value(self, data: Json) -> Json:
        """``data`` with every string masked, every value under a key that
        names a secret hidden, and the ``value`` of every ``{"name": ...,
        "value": ...}`` (a variable) whose name names one. Still the same
        shape of JSON."""
        return self._value(data, hidden=False)

    def _value(self, data: Json, hidden: bool) -> Json:
        if isinstance(data, str):
            return REDACTED if hidden and data else self.text(data)
        if isinstance(data, bool) or data is None:
            return data
        if isinstance(data, int | float):
            return REDACTED if hidden or str(data) in self._known else data
        if isinstance(data, dict):
            named = any(isinstance(data.get(k), str) and secret_name(str(data[k]))
                        for k in ("name", "evaluateName", "expression"))
            return {self.text(str(k)): self._value(
                v, hidden or bool(secret_name(str(k)))
                or (named and k in ("value", "result"))) for k, v in data.items()}
        if isinstance(data, list | tuple):
            return [self._value(v, hidden) for v in data]
        # Not JSON (a row's bytes, a time): as the text json.dumps' default
        # would make of it, masked.
        return REDACTED if hidden else self.text(str(data))


def _pairs(text: str) -> Iterator[re.Match[str]]:
    """The NAME=VALUE-like pairs of ``text`` whose NAME holds a secret word:
    found from the word (a fast search), then matched from its name's start."""
    done = 0
    for hint in _HINT.finditer(text):
        start = hint.start()
        if start < done:
            continue
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.-"):
            start -= 1
        m = _PAIR.match(text, start)
        if m is None:
            # Not a pair: look for the next one after this word.
            done = hint.end()
            continue
        done = m.end()
        yield m


def _sub_pairs(text: str) -> str:
    parts: list[str] = []
    last = 0
    for m in _pairs(text):
        parts += [text[last:m.start()], _masked_pair(m)]
        last = m.end()
    return "".join([*parts, text[last:]])


def _masked_pair(m: re.Match[str]) -> str:
    name = m["name"].lstrip("-")
    # An Authorization header's value was taken out whole, scheme kept.
    if name.lower() in _NOT_PAIR_NAMES or not secret_name(name):
        return m[0]
    return _masked_value(m)


def _masked_value(m: re.Match[str]) -> str:
    value = m["value"]
    if not value or value.lower() in NOT_SECRET or value == REDACTED:
        return m[0]
    start, end = m.span("value")
    return m[0][:start - m.start()] + REDACTED + m[0][end - m.start():]


def _forms(value: str) -> set[str]:
    """A value and the forms it takes once escaped as JSON or a Python repr."""
    return {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1],
            repr(value)[1:-1], json.dumps(json.dumps(value)[1:-1])[1:-1]}


def _alternation(values: Iterable[str]) -> re.Pattern[str] | None:
    forms = {f for v in values for f in _forms(v) if may_hide(f)}
    if not forms:
        return None
    # Longest first: a value that holds another is taken out whole.
    return re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)))


def argv_secrets(argv: Sequence[str]) -> set[str]:
    """The values of secret-looking flags in an argument list: the part
    after ``=`` of ``--password=VALUE``, and the next argument after a bare
    ``--password`` (unless it is a flag too). One-letter flags (``-p``) are
    not read: too many mean a port, a path or a count."""
    found: set[str] = set()
    for i, arg in enumerate(argv):
        if not arg.startswith("-"):
            continue
        flag, eq, value = arg.partition("=")
        if not _flag_secrecy(flag):
            continue
        if eq:
            found.add(value)
        elif i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            found.add(argv[i + 1])
    return found


def _learn(source: Json, found: set[str], read_text: bool = True) -> None:
    """What ``source`` holds; ``read_text=False`` when its strings were read
    already (a log line parsed as JSON): then only names beside values."""
    if isinstance(source, str):
        if read_text:
            _learn_text(source, found)
    elif isinstance(source, dict):
        named = any(isinstance(source.get(k), str)
                    and secret_name(str(source[k])) is Secrecy.EVERYWHERE
                    for k in ("name", "evaluateName"))
        for key, value in source.items():
            if (secret_name(str(key)) is Secrecy.EVERYWHERE
                    or (named and key in ("value", "result"))):
                _learn_leaves(value, found)
            _learn(value, found, read_text)
    elif isinstance(source, list | tuple):
        strings = [v for v in source if isinstance(v, str)]
        if len(strings) == len(source):
            found.update(argv_secrets(strings))
        for value in source:
            _learn(value, found, read_text)


def _learn_leaves(data: Json, found: set[str]) -> None:
    if isinstance(data, str):
        found.update(_unquoted(data))
    elif isinstance(data, int | float) and not isinstance(data, bool):
        found.add(str(data))
    elif isinstance(data, dict):
        for value in data.values():
            _learn_leaves(value, found)
    elif isinstance(data, list | tuple):
        for value in data:
            _learn_leaves(value, found)


def _learn_text(text: str, found: set[str]) -> None:
    for m in _pairs(text):
        name = m["name"].lstrip("-")
        # An Authorization header's credentials are learned below, not its scheme.
        if name.lower() in _NOT_PAIR_NAMES or secret_name(name) is not Secrecy.EVERYWHERE:
            continue
        # `NAME=VALUE` is a setting whatever VALUE is; `name = value` with
        # an unquoted value is mostly code.
        if m["q"] or not re.search(r"\s", m["sep"]) or not _CODE.fullmatch(m["value"]):
            found.update(_unquoted(m["value"]))
    for m in _FLAG.finditer(text):
        if _flag_secrecy(m["name"]) is Secrecy.EVERYWHERE:
            found.add(m["value"])
    for m in (*_NAMED_VALUE.finditer(text), *_NAMED_VALUE_ESCAPED.finditer(text)):
        if secret_name(m["name"]) is Secrecy.EVERYWHERE:
            found.update(_unquoted(m["value"]))
    found.update(m["value"] for m in _URL_PASSWORD.finditer(text))
    for m in _AUTH_HEADER.finditer(text):
        found.add(m["value"])
    for m in _PEM.finditer(text):
        # Its lines, each alone: the program may print them one at a time.
        found.update(line.strip() for line in re.split(r"\s+|\\[nr]", m["body"])
                     if len(line.strip()) >= 8)
    # A log line that is JSON after its prefix (a DAP message, a stop):
    # read as data, the names beside their values.
    for line in text.splitlines():
        start = line.find("{")
        if start < 0 or not line.rstrip().endswith("}") or len(line) > 1_000_000:
            continue
        try:
            data = json.loads(line[start:])
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            _learn(data, found, read_text=False)
