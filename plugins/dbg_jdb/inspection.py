"""What a stopped Java program shows through jdb: its stack and a frame's
arguments, locals, values (and setting them), threads, and the exception
it stopped at.

jdb lists a stack from the selected frame on and a frame's arguments only
with that frame selected: the stack is listed once a stop (a snapshot asks
for it twice) and frames are selected and selected back around each
question."""

from __future__ import annotations

import re
from dataclasses import replace

from dbg_jdb.conversation import JdbConversation, JsonObject
from dbg_jdb.jdwp import JdwpError
from dbg_jdb.objects import ObjectView
from dbg_jdb.parse import (
    THREAD_RE,
    THREAD_STATUS_RE,
    WHERE_RE,
    java_library,
    jdb_error,
    method_arguments,
)
from dbgcore.api import (
    Frame,
    OpFailed,
    StopState,
    Thread,
    UsageError,
    Value,
    Variable,
)


class JdbInspection(JdbConversation):
    """The inspection ops of the jdb backend."""

    def set_state(self, state: StopState) -> None:
        self._frames = None
        super().set_state(state)

    def stack(self, levels: int | None, timeout: float) -> list[Frame]:
        self.require_stopped("stack", timeout)
        if self._frames is None:
            self._frames = self._where(timeout)
        frames = [replace(f) for f in self._frames]
        return frames[:levels] if levels else frames

    def _where(self, timeout: float) -> list[Frame]:
        selected = self._frame
        if selected > 1:
            # jdb lists the stack from the selected frame on: list it from the
            # top, then select the frame again.
            self.command(f"down {selected - 1}", timeout, silent=True)
            try:
                listing = self.command("where", timeout)
            finally:
                self.command(f"up {selected - 1}", timeout, silent=True)
        else:
            listing = self.command("where", timeout)
        return self._frames_of(listing, selected)

    def _frames_of(self, listing: str, selected: int) -> list[Frame]:
        """The frames of a `where` listing from the top frame."""
        frames: list[Frame] = []
        for number, function, file_name, line in WHERE_RE.findall(listing):
            index = int(number) - 1
            owner = function.rsplit(".", 1)[0]
            file = self.breaks.file_of(owner) if file_name.endswith((".java", ".kt")) else None
            package = java_library(function)
            # Kotlin's main(String[]) has no lines: it only calls the main()
            # just above it, so it is the runtime's entry, not the program's.
            bridge = not line and bool(frames) and frames[-1].function == function
            frames.append(Frame(index, function, file,
                                int(re.sub(r"[,.]", "", line)) if line else None,
                                index == selected - 1, internal=bridge,
                                library=package is not None, library_name=package or None))
        return frames

    def frame_args(self, frames: list[Frame], timeout: float) -> None:
        # jdb's `locals` lists the selected frame's arguments apart from its
        # locals: two commands a frame (select it, `locals`), and one to
        # select the user's frame again.
        self.require_stopped("stack", timeout)
        selected = at = self._frame - 1
        try:
            for frame in sorted((f for f in frames if f.args is None), key=lambda f: f.index):
                if frame.index != at:
                    move = frame.index - at
                    self.command(f"{'up' if move > 0 else 'down'} {abs(move)}", timeout,
                                 silent=True)
                    at = frame.index
                rows = method_arguments(self.command("locals", timeout))
                frame.args = None if rows is None else [Variable(n, v, None) for n, v in rows]
        finally:
            if at != selected:
                move = selected - at
                self.command(f"{'up' if move > 0 else 'down'} {abs(move)}", timeout, silent=True)

    def select_frame(self, index: int, timeout: float) -> Frame:
        frames = self.stack(None, timeout)
        if index < 0 or index >= len(frames):
            raise OpFailed(f"no frame {index}: the stack has {len(frames)} frames",
                           "see `dbg stack`")
        move = index - (self._frame - 1)
        if move:
            self.command(f"{'up' if move > 0 else 'down'} {abs(move)}", timeout, silent=True)
        chosen = frames[index]
        chosen.current = True
        return chosen

    def locals(self, timeout: float) -> list[Variable]:
        self.require_stopped("locals", timeout)
        if self._frames is None and self._frame == 1 and self._late_prompt is None \
                and self._location is not None:
            # At a stop jdb reported (so the thread has frames), the snapshot
            # asks for the stack next: `where` goes with `locals`, and jdb
            # answers both in one round trip.
            answer, listing = self._two_commands("locals", "where", timeout)
            self._frames = self._frames_of(listing, 1)
        else:
            answer = self.command("locals", timeout)
        if "information not available" in answer:
            raise OpFailed("jdb has no local variable information here",
                           "compile with javac -g (dbg does so for a .java file)")
        out = []
        self._object_ids = {}
        for line in answer.splitlines():
            name, eq, value = line.partition(" = ")
            if eq and name.strip() and " " not in name.strip():
                out.append(Variable(name.strip(), self._shown(name.strip(), value.strip(),
                                                              timeout), None))
        return out

    def _objects(self) -> ObjectView | None:
        """The reader of objects over JDWP (None: jdb attached to the JVM
        itself, and dbg has no JDWP of its own to read them with)."""
        if self._object_view is None and self.jdwp is not None:
            self._object_view = ObjectView(self.jdwp)
        return self._object_view

    def _shown(self, name: str, value: str, timeout: float) -> str:
        """A local's value, an object (``instance of shop.Order(id=418)``)
        with its fields."""
        found = _INSTANCE_RE.fullmatch(value)
        view = self._objects()
        if found is None or view is None:
            return value
        self._object_ids[name] = int(found.group(1))
        try:
            return view.describe(int(found.group(1)), LOCALS_DEPTH, timeout)
        except JdwpError as exc:
            self.ctx.log.note(f"the fields of {name}: {exc}")
            return value

    def fields(self, variable: Variable, timeout: float) -> list[Variable] | None:
        """An object local's fields, one level, for the stop's `.name = value`
        lines (strings, boxed numbers, arrays and collections show their
        contents already)."""
        object_id = self._object_ids.get(variable.name)
        view = self._objects()
        if object_id is None or view is None:
            return None
        try:
            found = view.fields(object_id, 0, timeout)
        except JdwpError:
            return None
        return None if found is None else [Variable(n, v, None) for n, v in found]

    def evaluate(self, expression: str, timeout: float) -> Value:
        self.require_stopped("print", timeout)
        if any(c in expression for c in "\r\n"):
            raise UsageError("an expression must be one line")
        answer = self.command(f"print {expression}", timeout)
        prefix = f"{expression} = "
        text = answer.strip()
        if text.startswith(prefix):
            return Value(self._printed(expression, text[len(prefix):], timeout), None)
        raise OpFailed(f"cannot evaluate {expression}: {jdb_error(text)[5:]}")

    def _printed(self, expression: str, value: str, timeout: float) -> str:
        """What `print` shows of a value jdb printed: an object with its
        fields. jdb prints an array as ``instance of int[2] (id=424)`` and
        any other object by its toString() (``"shop.Order@7344699f"``), like
        a string: the value of a plain path (``o``, ``o.previous``,
        ``a[2]``, which reads nothing twice) is asked again wrapped in an
        array, whose id jdb does show, and read from there."""
        view = self._objects()
        if view is None:
            return value
        try:
            found = _INSTANCE_RE.fullmatch(value)
            if found is not None:
                return view.describe(int(found.group(1)), PRINT_DEPTH, timeout)
            if not value.startswith('"') or not _PATH_RE.fullmatch(expression.strip()):
                return value
            wrapped = f"java.util.Collections.singletonList({expression}).toArray()"
            answer = self.command(f"print {wrapped}", timeout).strip()
            found = _INSTANCE_RE.fullmatch(answer.removeprefix(f"{wrapped} = "))
            if found is None:
                return value
            return view.unless_string(int(found.group(1)), PRINT_DEPTH, timeout) or value
        except JdwpError as exc:
            self.ctx.log.note(f"the fields of {expression}: {exc}")
            return value

    def set_variable(self, lhs: str, value: str, timeout: float) -> Value:
        self.require_stopped("set", timeout)
        if not _JAVA_LVALUE_RE.fullmatch(lhs.strip()):
            # jdb "sets" `r.cap + 1 = 2` by printing r.cap + 1, and changes nothing.
            raise OpFailed(f"cannot set {lhs}: it is not a variable, a field or an array "
                           "element", "give something `dbg print` shows, e.g. r.cap or a[2]")
        answer = self.command(f"set {lhs} = {value}", timeout).strip()
        if not answer.startswith(f"{lhs} = "):
            raise OpFailed(f"cannot set {lhs}: {_set_error(answer)}", "nothing was changed")
        return self.evaluate(lhs, timeout)

    def threads(self, timeout: float) -> list[Thread]:
        self.require_stopped("threads", timeout)
        out = []
        for _, ident, rest in THREAD_RE.findall(self.command("threads", timeout)):
            name = THREAD_STATUS_RE.sub("", rest.strip()).strip()
            out.append(Thread(ident, name, name == self._thread))
        return out

    def select_thread(self, thread_id: int | str, timeout: float) -> Thread:
        listed = {str(t.id): t for t in self.threads(timeout)}
        thread = listed.get(str(thread_id))
        if thread is None:
            raise OpFailed(f"no thread {thread_id}", "see `dbg threads`")
        answer = self.command(f"thread {thread.id}", timeout, silent=True)
        if answer.strip():
            raise OpFailed(jdb_error(answer))
        self._thread = thread.name
        thread.current = True
        return thread

    def op_exception(self, args: JsonObject, timeout: float) -> JsonObject:
        """The exception the program stopped at: its class, its message (the
        JVM's answer to its getMessage(), see :mod:`dbg_jdb.jdwp`) and the
        stack, outermost first."""
        self.require_stopped("exception", timeout)
        if self._last_reason != "exception":
            raise OpFailed("the program did not stop at an exception",
                           "`dbg stack` shows where it is")
        frames = self.stack(None, timeout)
        return {"exception": self._last_exception, "description": self._last_message,
                "stack": "\n".join(f'  File "{f.file or "?"}", line {f.line or "?"}, '
                                   f"in {f.function or '?'}" for f in reversed(frames))}


#: An object as jdb shows it: ``instance of shop.Order(id=418)``,
#: ``instance of int[2] (id=424)``.
_INSTANCE_RE = re.compile(r"instance of [^()]+?\s*\(id=(\d+)\)")
#: How deep nested objects are shown: a local's (the stop shows each
#: object's own fields below it too), a printed value's.
LOCALS_DEPTH = 1
PRINT_DEPTH = 2
#: A name, then fields and elements at literal indexes: evaluated twice, it
#: reads the same and changes nothing.
_PATH_RE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[\d+\])*")

#: What `set` can assign: a name, then fields and array elements.
_JAVA_LVALUE_RE = re.compile(r"[A-Za-z_$][\w$]*(?:\s*(?:\.\s*[A-Za-z_$][\w$]*|\[[^\]]+\]))*")


def _set_error(answer: str) -> str:
    """jdb's reason a `set` failed, without the class names of its parser's
    exceptions: "Attempt to set value of incorrect type: Can't assign...".
    """
    text = jdb_error(answer).removeprefix("jdb: ")
    text = re.sub(r"^com\.sun\.tools\.example\.debug\.expr\.ParseException: ", "", text)
    return re.sub(r"\s*com\.sun\.jdi\.\w+: ", ": ", text)
