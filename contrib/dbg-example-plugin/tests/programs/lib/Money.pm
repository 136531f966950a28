package Money;
use strict;
use warnings;
use Exporter qw(import);
our @EXPORT_OK = qw(cents);

sub cents {
    my ($amount) = @_;
    return int($amount * 100);            # @cents
}

1;
