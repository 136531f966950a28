module example.com/gohot

go 1.19
