"""The program's threads on pdb, as the launcher lists them
(inprogram/threads.py): pdb stops one thread at a time, and shows only that
one, while the others run on; so a thread is listed with the place of its
own code, and only the stopped one can be selected. Beside the breakpoints'
layer, on the console's: a layer of its own because nothing else here is
about threads.
"""

from __future__ import annotations

from dbg_pdb.console import PdbConsole
from dbgcore.api import OpFailed, Thread


class PdbThreads(PdbConsole):
    """`dbg threads` and `dbg thread ID` on pdb."""

    def threads(self, timeout: float) -> list[Thread]:
        """The program's threads, main first; the stopped one is current
        (pdb stops one thread at a time: the others run on)."""
        rows = self._query("_dbg_threads", "threads", timeout)["threads"]
        return [Thread(r["id"], r["name"], bool(r.get("current")), function=r.get("function"),
                       file=r.get("file"), line=r.get("line")) for r in rows]

    def select_thread(self, thread_id: int | str, timeout: float) -> Thread:
        threads = self.threads(timeout)
        chosen = next((t for t in threads if str(t.id) == str(thread_id)), None)
        if chosen is None:
            raise OpFailed(f"no thread {thread_id}", "see `dbg threads`")
        if not chosen.current:
            raise OpFailed(f"thread {thread_id} runs on: pdb stops one thread at a time, and "
                           "shows only the stopped one",
                           "a breakpoint in its code stops it there (`dbg break`)")
        return chosen
