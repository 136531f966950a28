module example.com/gocart

go 1.19
