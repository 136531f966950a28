"""Inspection ops of the DAP backend: stack and frames, scopes and
variables, locals as a snapshot shows them, evaluation and assignment,
threads."""

from __future__ import annotations

import re
import time

from dbg_dap.calls import run_code
from dbg_dap.core import (
    MAX_FIELDS,
    DapCore,
    frame_location,
)
from dbg_dap.frames import LOCAL_SCOPE_HINTS
from dbg_dap.ops import MAX_CHILDREN
from dbgcore.api import (
    DbgError,
    Frame,
    Message,
    OpFailed,
    Thread,
    Value,
    Variable,
)

#: The most of a value `dbg print` answers (as pdb's bounded repr).
MAX_VALUE_CHARS = 4096
#: A C++ reference's value as the adapters show it: its address (gdb
#: "@0x7ffe...", lldb-dap "0x00007ffe...", then what its printer adds).
_REFERENCE_VALUE = re.compile(r"@?0x[0-9a-fA-F]+\s*")
#: `dbg threads` reads the place and wait of at most this many threads...
THREAD_PLACES = 64
#: ... for at most this long, ...
THREAD_PLACES_TIME = 3.0
#: ... each from this many of its innermost frames (a program frame below
#: deeper library calls is not found: the innermost frame is shown then).
THREAD_STACK_LEVELS = 24
#: A container's children: its elements, by index.
_INDEX_NAME = re.compile(r"\[\d+\]")
#: A C++ smart pointer's type (libstdc++'s and libc++'s), which both
#: adapters show with one child, the raw pointer (gdb "get()", lldb "pointer").
_SMART_POINTER = re.compile(r"(?:const\s+)?std::(?:__\w+::)?(?:unique|shared|weak)_ptr<")
#: A null pointer's value (gdb "0x0", lldb "0x0000000000000000").
_NULL_POINTER = re.compile(r"(?:0x0+|nullptr|NULL)\b.*")


class DapInspection(DapCore):
    def stack(self, levels: int | None, timeout: float) -> list[Frame]:
        self.stopped_session("stack")
        frames = self.stack_frames(timeout)
        internal = self.profile.internal_frames(frames)
        libraries = self.profile.library_frames(self.host, frames, timeout)
        shown = frames[:levels] if levels else frames
        return [Frame(i, self.profile.frame_name(f), frame_location(f).file, f.get("line"),
                      i == self.frame_index, internal=internal[i],
                      library=libraries[i] is not None, library_name=libraries[i] or None)
                for i, f in enumerate(shown)]

    def frame_args(self, frames: list[Frame], timeout: float) -> None:
        self.stopped_session("stack")
        known = self.stack_frames(timeout)
        wanted = [f for f in frames if f.args is None and f.index < len(known)]
        if wanted:
            found = self.profile.frames_args(self.host, [known[f.index] for f in wanted], timeout)
            for frame, args in zip(wanted, found, strict=True):
                frame.args = args

    def evaluate_in(self, frame: Message, expression: str, timeout: float,
                    context: str = "watch") -> str:
        """``expression``'s value in ``frame`` (any frame of the stack, not
        only the selected one), as the adapter renders it."""
        dap = self.stopped_session("print")
        body = dap.request("evaluate", {"expression": expression, "context": context,
                                        "frameId": int(frame["id"])}, timeout)
        return str(body.get("result", ""))

    def scope_arguments(self, frame: Message, timeout: float) -> list[Variable] | None:
        """The variables of the frame's arguments scope, for adapters that
        show one (gdb's "Arguments"); None when there is none."""
        for scope in self.scopes(timeout, int(frame["id"])):
            name = str(scope.get("name", "")).lower()
            hint = str(scope.get("presentationHint", "")).lower()
            if hint in ("arguments", "parameters") or name in ("arguments", "parameters"):
                return [Variable(str(v.get("name")), str(v.get("value", "")) or "{...}",
                                 v.get("type"))
                        for v in self.variables(int(scope["variablesReference"]), timeout)
                        if not self.profile.noise_variable(v)]
        return None

    def select_frame(self, index: int, timeout: float) -> Frame:
        self.stopped_session("frame")
        frames = self.stack_frames(timeout)
        if index >= len(frames):
            raise OpFailed(f"no frame {index}: the stack has {len(frames)} frames",
                           "see `dbg stack`")
        self.frame_index = index
        return self.stack(None, timeout)[index]

    def scopes(self, timeout: float, frame_id: int | None = None) -> list[Message]:
        dap = self.stopped_session("scopes")
        frame_id = self.current_frame_id(timeout) if frame_id is None else frame_id
        if frame_id is None:
            return []
        return list(dap.request("scopes", {"frameId": frame_id}, timeout).get("scopes") or [])

    def pages_children_of(self, row: Message) -> bool:
        """Whether the children of ``row`` (a variable, an evaluate's answer)
        can be asked for a page at a time: on an adapter that pages, or on
        one that pages indexed children only (delve) when ``row`` has them."""
        return self.profile.pages_variables or (
            self.profile.pages_indexed and bool(row.get("indexedVariables")))

    def variables(self, reference: int, timeout: float, start: int = 0,
                  count: int = 0, indexed: bool = False) -> list[Message]:
        """The children of ``reference``: on an adapter that pages (see
        AdapterProfile.pages_variables), the page of ``count`` from ``start``, and
        never more than :data:`MAX_CHILDREN` (``count`` 0: that many); with
        ``indexed``, on an adapter that pages indexed children only, the page
        of those; else all the adapter gives (it bounds them itself: debugpy
        folds a long container, delve loads 64 elements)."""
        dap = self.stopped_session("vars")
        arguments: Message = {"variablesReference": reference}
        if self.profile.pages_variables:
            arguments.update(start=start, count=min(count or MAX_CHILDREN, MAX_CHILDREN))
        elif indexed and self.profile.pages_indexed:
            arguments.update(filter="indexed", start=start,
                             count=min(count or MAX_CHILDREN, MAX_CHILDREN))
        rows = list(dap.request("variables", arguments, timeout).get("variables") or [])
        self._remember_parents(rows)
        return rows

    def _remember_parents(self, rows: list[Message]) -> None:
        for row in rows:
            if row.get("variablesReference"):
                self.parent_rows[int(row["variablesReference"])] = row

    def locals(self, timeout: float) -> list[Variable]:
        out: list[Variable] = []
        self.local_refs = {}
        wanted = []
        for scope in self.scopes(timeout):
            name = str(scope.get("name", "")).lower()
            hint = str(scope.get("presentationHint", "")).lower()
            if scope.get("expensive") or not (hint in LOCAL_SCOPE_HINTS or any(
                    word in name for word in LOCAL_SCOPE_HINTS)):
                continue
            wanted.append(int(scope["variablesReference"]))
        # Asked together (gdb's Arguments and Locals): one round trip a stop.
        page: Message = {"start": 0, "count": MAX_CHILDREN} if self.profile.pages_variables else {}
        answers = self.stopped_session("vars").request_all(
            [("variables", {"variablesReference": ref, **page}) for ref in wanted], timeout)
        for answer in answers:
            self._remember_parents(list(answer.get("variables") or []))
            for var in list(answer.get("variables") or []):
                if self.profile.noise_variable(var) or self._return_row(var):
                    continue
                value = str(var.get("value", ""))
                reference = int(var.get("variablesReference") or 0)
                smart = self.smart_pointee(var, timeout)
                if smart is not None:
                    # A smart pointer is shown as what it points to, as a
                    # reference is: a struct's fields under it, or nullptr.
                    value, reference = smart
                    if self.profile.bare_value(value) and reference:
                        value = ""
                if not value.strip() and reference:
                    value = "{...}"  # a struct: `dbg print NAME` shows its fields
                if reference:
                    self.local_refs[str(var.get("name"))] = (
                        reference, self.profile.children_counted(var) if smart is None else 0)
                out.append(Variable(str(var.get("name")), value, var.get("type")))
        return out

    def fields(self, variable: Variable, timeout: float) -> list[Variable] | None:
        ref, size = self.local_refs.get(variable.name, (0, 0))
        if not ref or not self.profile.hides_fields(variable.value):
            return None
        if size > MAX_FIELDS:
            # A million-element array is not expanded: asking an adapter
            # without paging (gdb) for its children takes all of them.
            return None
        rows = [v for v in self.variables(ref, timeout) if not self.profile.noise_variable(v)
                and self.profile.child_kind(v) != "group"]
        return [Variable(str(v.get("name")), self._child_text(v, timeout) or "{...}", v.get("type"))
                for v in rows]

    def _child_text(self, row: Message, timeout: float) -> str:
        """A child's value where its parent's are listed on one line or under
        it: a struct as {...}, a smart pointer as what it points to."""
        value = str(row.get("value", ""))
        smart = self.smart_pointee(row, timeout)
        if smart is not None:
            value, reference = smart
            if reference and self.profile.bare_value(value):
                return "{...}"
            return value
        return value if value.strip() or not row.get("variablesReference") else "{...}"

    def return_rows(self, timeout: float) -> list[Message]:
        """debugpy's "(return) NAME" rows among the top frame's locals (a
        finish's return value; `dbg locals` leaves them out)."""
        rows = []
        for scope in self.scopes(timeout):
            if scope.get("expensive"):
                continue
            rows += [v for v in self.variables(int(scope["variablesReference"]), timeout)
                     if self._return_row(v)]
        return rows

    def _return_row(self, var: Message) -> bool:
        prefix = self.profile.return_row_prefix
        return bool(prefix) and str(var.get("name", "")).startswith(prefix)

    def shown_value(self, var: Message, timeout: float) -> str:
        """A variable's value as `dbg print` shows it (a struct: its fields)."""
        value = str(var.get("value", ""))
        reference = int(var.get("variablesReference") or 0)
        if reference and self.profile.bare_value(value):
            return self._summary(reference, self.profile.children_counted(var), timeout)
        return value

    def evaluate(self, expression: str, timeout: float) -> Value:
        return self.evaluate_with(expression, None, timeout)

    def evaluate_with(self, expression: str, context: str | None, timeout: float) -> Value:
        """``expression``'s value in the selected frame, in the evaluate
        ``context`` (None: `dbg print`'s, its answer bounded)."""
        dap = self.stopped_session("print")
        if context is None:
            why = self.profile.unreadable(self.host, expression, timeout)
            if why is not None:
                raise OpFailed(why, "a core file holds only the memory the program had "
                                    "when it died; `dbg locals` shows the pointers")
        arguments: Message = {"expression": expression,
                              "context": context or self.profile.print_context}
        frame_id = self.current_frame_id(timeout)
        if frame_id is not None:
            arguments["frameId"] = frame_id
        if arguments["context"] == self.profile.raw_context:
            # The native console: its commands may resume the program for real.
            body = dap.request("evaluate", arguments, timeout)
        else:
            body = run_code(self, "evaluate", arguments, timeout)
        result = str(body.get("result", ""))
        reference = int(body.get("variablesReference") or 0)
        if reference:
            self.parent_rows[reference] = body
        if reference and context is None:
            result, reference = self._referent(result, str(body.get("type") or ""), reference,
                                               timeout)
            smart = self.smart_pointee(body, timeout)
            if smart is not None:
                result, reference = smart
        if reference and self.profile.bare_value(result):
            # gdb gives a struct no value of its own, lldb-dap "TYPE @ ADDRESS":
            # show the fields.
            result = self._summary(reference, self.profile.children_counted(body), timeout)
        elif reference and context is None:
            result = self._with_elements(result, reference, timeout)
        if context is None and len(result) > MAX_VALUE_CHARS:
            # `print`'s answer: an adapter's own bound may be far larger
            # (debugpy shows 64 KB of a string).
            result = (f"{result[:MAX_VALUE_CHARS]}... (cut at {MAX_VALUE_CHARS} of the "
                      f"{len(result)} characters {self.tool_name} answered)")
        return Value(result, body.get("type"))

    def _referent(self, value: str, type_: str, reference: int,
                  timeout: float) -> tuple[str, int]:
        """A C++ reference is shown as what it refers to (as the language
        reads it), not as its address: the value, and the reference of its
        children, to show in its place."""
        address = _REFERENCE_VALUE.match(value)
        if not type_.rstrip().endswith("&") or address is None:
            return value, reference
        try:
            rows = self.variables(reference, timeout, 0, 2)
        except DbgError:
            return value, reference  # a reference to memory that cannot be read
        pointee = pointee_row(rows)
        if pointee is not None:
            # gdb: the referent is the reference's one child.
            return str(pointee.get("value") or ""), int(pointee["variablesReference"])
        # lldb-dap: the children are the referent's own; its printer's words
        # ("size=9") follow the address.
        return value[address.end():], reference

    def smart_pointee(self, row: Message, timeout: float) -> tuple[str, int] | None:
        """What a C++ smart pointer (``row``, a variable or an evaluate's
        answer) points to, as the language's ``*p`` reads it and as IDEs show
        it: the pointee's value and the reference of its children ("" and the
        reference for a struct, whose fields are then shown), or "nullptr"
        for a null one; None for anything else. Both adapters give a smart
        pointer one child, the raw pointer, whose children are the pointee's
        (gdb: one "value" child; lldb-dap: the pointee's own fields)."""
        reference = int(row.get("variablesReference") or 0)
        if not reference or not _SMART_POINTER.match(str(row.get("type") or "")):
            return None
        try:
            rows = self.variables(reference, timeout, 0, 2)
            if len(rows) != 1:
                return None
            pointer = rows[0]
            if _NULL_POINTER.fullmatch(str(pointer.get("value") or "").strip()):
                return "nullptr", 0
            inner = int(pointer.get("variablesReference") or 0)
            if not inner:
                return None
            children = self.variables(inner, timeout, 0, 2)
        except DbgError:
            return None  # memory the debugger cannot read: shown as it is
        name = str(children[0].get("name")) if len(children) == 1 else ""
        if name == "value" or name.startswith("*"):
            return str(children[0].get("value") or ""), int(
                children[0].get("variablesReference") or 0)
        return "", inner

    def _with_elements(self, value: str, reference: int, timeout: float,
                       limit: int = 12) -> str:
        """A container's summary ("std::vector of length 9, capacity 16")
        with its first elements: {1, 2, 3, ...}."""
        if value.rstrip().endswith(("]", "}")) or value.startswith(('"', "'")):
            # Its elements are in it already (delve: "[]int len: 3, cap: 3,
            # [1,2,3]"), or it is a string (lldb-dap lists a &str's characters).
            return value
        try:
            rows = self.variables(reference, timeout, 0, limit + 1)
        except DbgError:
            return value  # children the debugger cannot read (a null pointer's)
        if not rows or not all(_INDEX_NAME.fullmatch(str(r.get("name"))) for r in rows):
            return value
        shown = [self._child_text(r, timeout) or "{...}" for r in rows[:limit]]
        more = ", ..." if len(rows) > limit else ""
        return f"{value} {{{', '.join(shown)}{more}}}".lstrip()

    def _summary(self, reference: int, total: int, timeout: float, limit: int = 12) -> str:
        """A value's children on one line: {name = value, ...}; of more than
        ``limit`` (``total``: as many as the adapter counted, 0 if it did
        not), how many were shown."""
        # Only what is shown (and one more, to know there is more): a struct
        # array of 100,000 elements is not fetched whole to show twelve.
        rows = [r for r in self.variables(reference, timeout, 0, limit + 1)
                if self.profile.child_kind(r) == "item"]
        parts = []
        for row in rows[:limit]:
            parts.append(f"{row.get('name')} = {self._child_text(row, timeout)}")
        if len(rows) <= limit:
            return "{" + ", ".join(parts) + "}"
        of = f" of {total}" if total else ""
        return ("{" + ", ".join(parts) + ", ...}"
                + f" ({len(parts)}{of} shown; `dbg vars` pages the rest)")

    def threads(self, timeout: float) -> list[Thread]:
        threads = self._adapter_threads(timeout)
        if self.profile.threads_with_places:
            self._place_threads(threads, timeout)
        return threads

    def _adapter_threads(self, timeout: float) -> list[Thread]:
        dap = self.stopped_session("threads")
        threads = dap.request("threads", None, timeout).get("threads") or []
        return [Thread(t["id"], str(t.get("name", "")), t["id"] == self.thread_id)
                for t in threads]

    def _place_threads(self, threads: list[Thread], timeout: float) -> None:
        """Each thread's place in the program's code and its wait, from its
        own stack (the first :data:`THREAD_STACK_LEVELS` frames): for at
        most :data:`THREAD_PLACES` threads and :data:`THREAD_PLACES_TIME`
        seconds, so that a program of thousands of goroutines still answers
        at once; the others keep their names only."""
        dap = self.dap_session()
        deadline = time.monotonic() + min(timeout, THREAD_PLACES_TIME)
        for thread in threads[:THREAD_PLACES]:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                answer = dap.request("stackTrace", {"threadId": thread.id, "startFrame": 0,
                                                    "levels": THREAD_STACK_LEVELS}, left)
            except DbgError:
                continue  # a thread that ended since, or has no stack yet
            frames = [f for f in answer.get("stackFrames") or []
                      if not self.profile.pseudo_frame(f)]
            if not frames:
                continue
            own = frames[self.profile.program_frame(self.host, frames, left)]
            thread.function = self.profile.frame_name(own)
            thread.file, thread.line = frame_location(own).file, own.get("line")
            wait = self.profile.frame_wait(self.host, frames[0], left)
            if wait is not None:
                thread.state, thread.waits = wait

    def select_thread(self, thread_id: int | str, timeout: float) -> Thread:
        for thread in self._adapter_threads(timeout):
            if str(thread.id) == str(thread_id):
                self.thread_id = int(thread.id)
                self.drop_frames()
                self.frame_index = 0
                thread.current = True
                return thread
        raise OpFailed(f"no thread {thread_id}", "see `dbg threads`")


def pointee_row(rows: list[Message]) -> Message | None:
    """The one child of a pointer or reference that is what it points to
    (gdb names it "value", lldb "*name"); None for any other children."""
    if len(rows) != 1 or not rows[0].get("variablesReference"):
        return None
    name = str(rows[0].get("name"))
    return rows[0] if name == "value" or name.startswith("*") else None
