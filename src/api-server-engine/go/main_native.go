//go:build !wasip1

package main

// The engine is built for wasip1 only (exports.go); natively, `go vet` and `go test` still compile the package.
func main() {}
