module calc

go 1.19
