# Writes its pid to the file named by its argument, then loops until killed.
use strict;
use warnings;

open(my $out, ">", $ARGV[0]) or die "cannot write $ARGV[0]: $!";
print $out $$;
close($out);
my $count = 0;
while (1) {
    $count++;    # @loop
}
