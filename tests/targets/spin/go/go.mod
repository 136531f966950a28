module spin

go 1.19
