module counsel

go 1.26.8
