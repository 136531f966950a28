module example.com/gowc

go 1.19
