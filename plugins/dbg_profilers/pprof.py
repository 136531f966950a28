"""Go's pprof as a profiler of a Go package's tests: ``go test
-cpuprofile FILE`` in the package's folder runs its tests with the Go
runtime's own sampler on (SIGPROF, 100 times a second of CPU time), and
``go tool pprof -raw`` reads the profile back.

``-raw`` rather than ``-traces``: both list each stack with its weight, but
``-raw`` names every frame by its location (address, function, file:line,
and the functions inlined there, one a line), where ``-traces`` gives lines
only with ``-lines`` and prints each stack's frames as columns of text meant
for a person. The profile is written when the tests end, passed or failed:
a failing test keeps what was sampled, and the answer has go test's exit
code and last lines.

A running program that serves ``net/http/pprof`` is read by its URL
(``--url``): its ``/debug/pprof/profile`` samples it for ``seconds`` (the
query's, or ``--duration``, else 5) and answers the profile, which dbg
fetches itself and gives to ``go tool pprof -raw`` as a file. Loopback only:
the profile is fetched without a password, and a program's stacks are not
asked of another machine.
"""

from __future__ import annotations

import ipaddress
import math
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

from dbg_profilers import common, nativeframes
from dbgcore.api import (
    OpFailed,
    Profile,
    ProfileFrame,
    Profiler,
    Readiness,
    RecordRequest,
    Sample,
    UsageError,
)

INSTALL = "apt-get install golang (or https://go.dev/dl/)"
#: The Go runtime's sampling rate in a test: runtime/pprof's, fixed.
RATE = 100
#: Seconds a served profile samples when neither the URL nor --duration says.
URL_SECONDS = 5
#: The largest profile read from a URL (a CPU profile is some kB a second).
MAX_BYTES = 64 * 1024 * 1024
#: The path net/http/pprof serves the CPU profile at.
PROFILE_PATH = "/debug/pprof/profile"

#: ``-raw``'s lines: a sample (``count nanoseconds: location ids``, the leaf's
#: first), a location (``id: address M=mapping function file:line s=start``)
#: and a function inlined at the location before (the same, without id and
#: address).
_SAMPLE_RE = re.compile(r"^\s*(?P<count>\d+)\s+\d+:(?P<ids>(?:\s+\d+)+)\s*$")
_LOCATION_RE = re.compile(r"^\s*(?P<id>\d+): 0x[0-9a-f]+ M=\d+ ?(?P<rest>.*)$")
_LINE_RE = re.compile(r"^(?P<function>\S+) (?P<file>.+):(?P<line>\d+)(?: s=\d+)?$")


class PprofProfiler(Profiler):
    id = "pprof"
    tool_name = "go tool pprof"
    languages = ("go",)
    reads_url = True
    install = INSTALL
    summary = "samples a Go package's tests (go test -cpuprofile, read by go tool pprof)"

    @classmethod
    def readiness(cls) -> Readiness:
        go = shutil.which("go")
        if go is None:
            return Readiness(False, "go is not installed")
        version = common.tool_version([go, "version"], r"go version go(\S+)")
        if version is None:
            return Readiness(False, f"{go} does not run")
        return Readiness(True, go, version)

    @classmethod
    def fits(cls, program: Path) -> bool:
        """A Go package's folder with tests (``*_test.go``)."""
        try:
            return program.is_dir() and any(program.glob("*_test.go"))
        except OSError:
            return False

    def record(self, request: RecordRequest) -> Profile:
        go = shutil.which("go")
        if go is None:
            raise OpFailed("go is not installed", INSTALL)
        if request.rate and request.rate != RATE:
            raise UsageError(f"go test samples at {RATE} Hz, the Go runtime's rate: it "
                             "takes no --rate", "leave out --rate")
        if request.url:
            return self._read_url(go, request)
        package = Path(request.argv[0])
        if not self.fits(package):
            raise UsageError(f"pprof profiles a Go package's tests: {package} is not a "
                             "folder with *_test.go files",
                             "dbg profile --tool pprof PACKAGE_FOLDER [go test flags...]")
        if request.duration is not None:
            raise UsageError("a Go test profile is written when the tests end: pprof takes "
                             "no --duration",
                             "choose the tests to run: dbg profile --tool pprof PACKAGE "
                             "-run TestName")
        cpu = request.workdir / "cpu.out"
        binary = request.workdir / "package.test"
        output = request.workdir / "output.txt"
        argv = [go, "test", "-count=1", f"-cpuprofile={cpu}", "-o", str(binary),
                *request.argv[1:], "."]
        began = time.monotonic()
        in_package = RecordRequest(request.workdir, request.argv, timeout=request.timeout,
                                   cwd=package.resolve(), env=request.env)
        status, _cut = common.run_bounded(argv, in_package, output, None)
        elapsed = time.monotonic() - began
        if not cpu.exists():
            raise OpFailed(f"go test wrote no profile: {_reason(output)}",
                           f"does `go test {' '.join(request.argv[1:])}` pass in "
                           f"{package}?")
        samples = read_raw(_raw(go, binary, cpu, request.timeout))
        profile = Profile(self.id, "stacks", "samples", samples, rate=float(RATE),
                          duration=elapsed, exit_code=status)
        if status:
            profile.output = common.tail(output)
        return profile


    def _read_url(self, go: str, request: RecordRequest) -> Profile:
        url, seconds = profile_url(str(request.url), request.duration)
        cpu = request.workdir / "cpu.out"
        began = time.monotonic()
        try:
            # Straight to the loopback address, never through a proxy the
            # environment names.
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with opener.open(url, timeout=seconds + 30) as answer:
                body = answer.read(MAX_BYTES + 1)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise OpFailed(f"could not read the profile at {url}: {reason}",
                           "does the program serve net/http/pprof on that port? "
                           "(import _ \"net/http/pprof\")") from exc
        elapsed = time.monotonic() - began
        if len(body) > MAX_BYTES:
            raise OpFailed(f"the profile at {url} is over {MAX_BYTES >> 20} MB",
                           "ask for fewer seconds (--duration)")
        cpu.write_bytes(body)
        samples = read_raw(_raw(go, request.workdir / "none", cpu, request.timeout))
        profile = Profile(self.id, "stacks", "samples", samples, rate=float(RATE),
                          duration=elapsed)
        profile.note = f"{seconds} s of the running program, as it served them"
        return profile


def profile_url(given: str, duration: float | None) -> tuple[str, int]:
    """The URL of a served CPU profile, and the seconds it samples: the path
    net/http/pprof serves it at when only the server is given, ``seconds``
    from --duration (whole seconds, at least 1), else the URL's, else 5.
    Refused unless it is http(s) on the loopback interface."""
    parts = urllib.parse.urlsplit(given)
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if parts.scheme not in ("http", "https") or not loopback:
        raise UsageError(f"--url {given}: profiles are read from this machine only "
                         "(http://127.0.0.1:PORT, localhost or [::1])",
                         "--url http://127.0.0.1:6060/debug/pprof/profile")
    query = dict(urllib.parse.parse_qsl(parts.query))
    if duration is not None:
        query["seconds"] = str(max(1, math.ceil(duration)))
    seconds_text = query.setdefault("seconds", str(URL_SECONDS))
    if not seconds_text.isdigit() or int(seconds_text) < 1:
        raise UsageError(f"--url {given}: seconds={seconds_text} is not a whole number "
                         "of seconds", "seconds=5, or --duration 5")
    path = parts.path if parts.path not in ("", "/") else PROFILE_PATH
    url = urllib.parse.urlunsplit((parts.scheme, parts.netloc, path,
                                   urllib.parse.urlencode(query), ""))
    return url, int(seconds_text)


def _raw(go: str, binary: Path, cpu: Path, timeout: float) -> str:
    argv = [go, "tool", "pprof", "-raw", *([str(binary)] if binary.exists() else []), str(cpu)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                              timeout=timeout, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise OpFailed(f"go tool pprof could not read the profile: {exc}") from exc
    if done.returncode != 0:
        raise OpFailed("go tool pprof could not read the profile: "
                       f"{_last(done.stderr)}")
    return done.stdout


def read_raw(text: str) -> list[Sample]:
    """``go tool pprof -raw``'s samples as stacks, outermost frame first:
    each location one frame, or several where functions were inlined there
    (listed innermost first, as the sample's locations are)."""
    stacks: list[tuple[int, list[str]]] = []
    locations: dict[str, list[ProfileFrame]] = {}
    section = ""
    last: list[ProfileFrame] | None = None
    for line in text.splitlines():
        if line in ("Samples:", "Locations", "Mappings"):
            section, last = line, None
            continue
        if section == "Samples:":
            sample = _SAMPLE_RE.match(line)
            if sample is not None:
                stacks.append((int(sample.group("count")), sample.group("ids").split()))
        elif section == "Locations":
            location = _LOCATION_RE.match(line)
            if location is not None:
                last = locations.setdefault(location.group("id"), [])
                frame = _frame(location.group("rest"))
                if frame is not None:
                    last.append(frame)
            elif last is not None:
                frame = _frame(line.strip())
                if frame is not None:
                    last.append(frame)
    counts: Counter[tuple[ProfileFrame, ...]] = Counter()
    for count, ids in stacks:
        leaf_first = [f for i in ids for f in locations.get(i) or
                      [ProfileFrame(f"location {i}", library="go")]]
        counts[tuple(reversed(leaf_first))] += count
    return [Sample(stack, float(count)) for stack, count in counts.items()]


def _frame(text: str) -> ProfileFrame | None:
    found = _LINE_RE.match(text)
    if found is None:
        return None
    function, file = found.group("function"), found.group("file")
    return ProfileFrame(function, file, int(found.group("line")) or None,
                        nativeframes.library(function, file, None, None))


def _reason(output: Path) -> str:
    lines = [line.strip() for line in common.tail(output).splitlines()
             if line.strip() and not line.startswith(("ok ", "FAIL\t", "exit status"))]
    return lines[-1] if lines else "no reason given"


def _last(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no reason given"
