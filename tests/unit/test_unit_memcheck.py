"""What `dbg memcheck` reads in valgrind's log: each error valgrind stopped
for (its kind, and what it says of the memory with the program's frame),
and the summaries at the end. The logs are as valgrind 3.19 wrote them for
tests/targets/native/memfaults.c and a program with a thread; the property
test writes errors the way valgrind lays them out and reads them back.
(Valgrind ends its blank lines and "vgdb me ..." with a space; here they
are trimmed, which the reading does not depend on.)"""

from __future__ import annotations

from dbg_dap.memcheck import errors_in, summary_of
from hypothesis import given
from hypothesis import strategies as st

#: valgrind --tool=memcheck --vgdb=yes --vgdb-error=0 --track-origins=yes, on memfaults.
MEMFAULTS_LOG = """\
==14153== Memcheck, a memory error detector
==14153== Command: ./mf
==14153==
==14153== (action at startup) vgdb me ...
==14153==
==14153== TO DEBUG THIS PROCESS USING GDB: start GDB like this
==14153==   target remote | /usr/bin/vgdb --pid=14153
==14153==
==14153== Conditional jump or move depends on uninitialised value(s)
==14153==    at 0x1091C9: main (memfaults.c:23)
==14153==  Uninitialised value was created by a stack allocation
==14153==    at 0x1091AE: main (memfaults.c:20)
==14153==
==14153== (action on error) vgdb me ...
==14153== Continuing ...
==14153== Invalid read of size 4
==14153==    at 0x109198: total (memfaults.c:15)
==14153==    by 0x10922E: main (memfaults.c:30)
==14153==  Address 0x4a41050 is 0 bytes after a block of size 16 alloc'd
==14153==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==14153==    by 0x1091E3: main (memfaults.c:26)
==14153==
==14153== (action on error) vgdb me ...
==14153== Continuing ...
==14153== Invalid free() / delete / delete[] / realloc()
==14153==    at 0x484417B: free (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==14153==    by 0x109262: main (memfaults.c:33)
==14153==  Address 0x4a41040 is 0 bytes inside a block of size 16 free'd
==14153==    at 0x484417B: free (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==14153==    by 0x109256: main (memfaults.c:32)
==14153==  Block was alloc'd at
==14153==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==14153==    by 0x1091E3: main (memfaults.c:26)
==14153==
==14153== (action on error) vgdb me ...
==14153== Continuing ...
==14153==
==14153== HEAP SUMMARY:
==14153==     in use at exit: 32 bytes in 1 blocks
==14153==   total heap usage: 3 allocs, 3 frees, 4,144 bytes allocated
==14153==
==14153== LEAK SUMMARY:
==14153==    definitely lost: 32 bytes in 1 blocks
==14153==    indirectly lost: 0 bytes in 0 blocks
==14153==      possibly lost: 0 bytes in 0 blocks
==14153==    still reachable: 0 bytes in 0 blocks
==14153==         suppressed: 0 bytes in 0 blocks
==14153== Rerun with --leak-check=full to see details of leaked memory
==14153==
==14153== For lists of detected and suppressed errors, rerun with: -s
==14153== ERROR SUMMARY: 3 errors from 3 contexts (suppressed: 0 from 0)
"""

#: The second error of a program whose thread reads a malloc'd int unset.
THREAD_LOG = """\
==4711== (action on error) vgdb me ...
==4711== Continuing ...
==4711== Thread 2:
==4711== Conditional jump or move depends on uninitialised value(s)
==4711==    at 0x10919C: work (thr.c:6)
==4711==    by 0x48E51F4: start_thread (pthread_create.c:442)
==4711==    by 0x4964B4F: clone (clone.S:100)
==4711==  Uninitialised value was created by a heap allocation
==4711==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==4711==    by 0x10918E: work (thr.c:5)
==4711==    by 0x48E51F4: start_thread (pthread_create.c:442)
==4711==
==4711== (action on error) vgdb me ...
==4711== Continuing ...
"""


def test_each_error_valgrind_stopped_for_with_the_programs_frame() -> None:
    found = errors_in(MEMFAULTS_LOG)
    assert [e.description().splitlines() for e in found] == [
        ["memcheck: Conditional jump or move depends on uninitialised value(s)",
         "Uninitialised value was created by a stack allocation at main (memfaults.c:20)"],
        ["memcheck: Invalid read of size 4",
         "Address 0x4a41050 is 0 bytes after a block of size 16 alloc'd at main "
         "(memfaults.c:26)"],
        ["memcheck: Invalid free() / delete / delete[] / realloc()",
         "Address 0x4a41040 is 0 bytes inside a block of size 16 free'd at main "
         "(memfaults.c:32)",
         "Block was alloc'd at main (memfaults.c:26)"]]
    assert [e.where for e in found] == ["main (memfaults.c:23)", "total (memfaults.c:15)",
                                        "main (memfaults.c:33)"]


def test_an_error_not_yet_stopped_for_is_not_read() -> None:
    # Written, but valgrind has not yet said it stops for it.
    cut = MEMFAULTS_LOG.index("==14153== (action on error) vgdb me ...\n==14153== "
                              "Continuing ...\n==14153== Invalid free()")
    assert len(errors_in(MEMFAULTS_LOG[:cut])) == 1


def test_a_threads_error_is_read_past_valgrinds_thread_line() -> None:
    [error] = errors_in(THREAD_LOG)
    assert error.kind == "Conditional jump or move depends on uninitialised value(s)"
    assert error.where == "work (thr.c:6)"
    assert error.notes == ["Uninitialised value was created by a heap allocation at work "
                           "(thr.c:5)"]


def test_the_summaries_error_count_first() -> None:
    assert summary_of(MEMFAULTS_LOG) == [
        "memcheck: ERROR SUMMARY: 3 errors from 3 contexts (suppressed: 0 from 0)",
        "  in use at exit: 32 bytes in 1 blocks",
        "  definitely lost: 32 bytes in 1 blocks",
        "  indirectly lost: 0 bytes in 0 blocks",
        "  possibly lost: 0 bytes in 0 blocks",
        "  still reachable: 0 bytes in 0 blocks",
        "  suppressed: 0 bytes in 0 blocks"]
    assert summary_of(THREAD_LOG) == []


_words = st.text(st.sampled_from("abcdefghij_ ()/.'"), min_size=1, max_size=30).map(
    lambda text: "x" + text.strip())
_frame = st.tuples(st.sampled_from(["main", "total", "free", "malloc"]),
                   st.one_of(st.integers(1, 999).map(lambda n: f"(prog.c:{n})"),
                             st.just("(in /usr/libexec/valgrind/vgpreload.so)")))


@given(st.lists(st.tuples(_words, st.lists(_frame, min_size=1, max_size=4),
                          st.lists(st.tuples(_words, st.lists(_frame, min_size=1,
                                                              max_size=3)), max_size=2)),
                max_size=4))
def test_errors_laid_out_as_valgrind_does_are_read_back(
        errors: list[tuple[str, list[tuple[str, str]], list[tuple[str, list[tuple[str, str]]]]]]
) -> None:
    lines = ["==7== Command: ./prog", "==7== "]
    for kind, stack, notes in errors:
        lines += ["==7== Continuing ...", f"==7== {kind}"]
        for i, (function, where) in enumerate(stack):
            lines.append(f"==7==    {'at' if i == 0 else 'by'} 0x10{i:04X}: {function} {where}")
        for words, frames in notes:
            lines.append(f"==7==  {words}")
            lines += [f"==7==    at 0x4A{i:04X}: {function} {where}"
                      for i, (function, where) in enumerate(frames)]
        lines += ["==7== ", "==7== (action on error) vgdb me ... "]
    found = errors_in("\n".join(lines) + "\n")
    assert [e.kind for e in found] == [kind for kind, _, _ in errors]
    for error, (_, stack, notes) in zip(found, errors, strict=True):
        with_lines = [f"{f} {w}" for f, w in stack if w.startswith("(prog.c:")]
        assert error.where == (with_lines[0] if with_lines else f"{stack[0][0]} {stack[0][1]}")
        assert [note.split(" at ")[0] for note in error.notes] == [w for w, _ in notes]
