module goring

go 1.19
