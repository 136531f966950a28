module golock

go 1.19
