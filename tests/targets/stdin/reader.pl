# Reads lines from its stdin, a prompt before each: as many as its argument
# says (default 3), or up to the end of the file. For tests/test_stdin.py.
use strict;
use warnings;

$| = 1;
my $wanted = @ARGV ? $ARGV[0] : 3;
my $got = 0; # @before
while ($got < $wanted) {
    print "line ", $got + 1, "? ";
    my $text = <STDIN>;
    if (!defined $text) {
        print "EOF after $got lines\n";
        last;
    }
    chomp $text;
    $got++; # @got
    print "read $got: $text\n";
}
print "done: $got lines\n"; # @done
