# Runs until interrupted: a loop that never ends, with a short sleep.
use strict;
use warnings;
use Time::HiRes qw(usleep);

my $count = 0;
while (1) {
    $count++;    # @loop
    usleep(1000) if $count % 1000 == 0;
}
