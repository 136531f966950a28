module example.com/goserve

go 1.19
