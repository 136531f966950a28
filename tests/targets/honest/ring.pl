# A ring of numbers: `dbg set` on hash and array elements through references.
use strict;
use warnings;

sub twice {
    my ($x) = @_;
    return $x * 2;    # @twice
}

my $r = { cap => 4, items => [10, 20, 30] };
my @items = (1, 2, 3);
my $total = twice($r->{cap});    # @call
print "$total $r->{cap} $r->{items}[2] $items[0]\n";    # @print
