# Loaded by dbg (ruby -r) before the program: its output is written at once,
# so that dbg shows it as the program writes it, and none is lost when the
# session kills the program (rdbg's kill! exits without flushing buffers).
$stdout.sync = true
$stderr.sync = true
