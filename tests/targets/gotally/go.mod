module tally

go 1.19
