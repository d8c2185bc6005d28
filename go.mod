module counsel

go 1.26.8

require github.com/matryer/is v1.4.1
