module example.com/reader

go 1.19
