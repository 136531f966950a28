module ledger

go 1.19
