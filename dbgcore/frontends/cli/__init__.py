"""The ``dbg`` command line: the click application is in :mod:`dbgcore.frontends.cli.app`.

This package's own import is kept empty so the fast path in
:mod:`dbgcore.entry` can use :mod:`dbgcore.frontends.cli.emit` without loading click.
"""
