module doomed

go 1.19
