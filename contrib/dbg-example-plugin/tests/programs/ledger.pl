#!/usr/bin/perl
# A small ledger: the marked program dbg's testing kit runs the perl backend on.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Money qw(cents);

sub fee {
    my ($amount) = @_;                    # @fee
    my $rate = 2;
    return $amount * $rate / 100 + 1;
}

sub split_total {
    my ($total) = @_;
    return (int($total / 2), $total - int($total / 2));   # @split
}

my %account = (owner => "ada", entries => [3, 4]);
my $total = 0;
for my $i (1 .. 3) {
    $total += $i;                         # @loop
}
my $cost = fee(100);                      # @call-fee
my @halves = split_total($total);
print "total $total cost $cost cents ", cents($cost), " halves @halves\n";
if (@ARGV && $ARGV[0] eq "spin") {
    my $turns = 0;
    while (1) { $turns++; }               # @spin
}
exit 0;
