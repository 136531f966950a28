module gostuck

go 1.19
