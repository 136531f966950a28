module vastgo

go 1.19
