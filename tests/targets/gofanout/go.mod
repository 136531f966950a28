module gofanout

go 1.19
