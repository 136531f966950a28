module gosleep

go 1.19
