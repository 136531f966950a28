# dbg runs a Ruby program through this file (ruby dbg_launch.rb PROGRAM ARGS):
# rdbg's first stop (where it waits for dbg) is here, at its first line, so
# the program's own first line is still to run and a breakpoint there stops.
# The program sees itself as $0 and ARGV as it would run alone.
$0 = ARGV.shift
load $0
