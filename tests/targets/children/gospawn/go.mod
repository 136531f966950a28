module gospawn

go 1.19
