// A Go program that serves its own profile (net/http/pprof) on a loopback
// port while it works: `find` scans a table linearly, called from two sites
// of unequal cost, over and over. It prints "listening PORT" when it serves.
package main

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
)

const size = 4000

var table = func() []int {
	xs := make([]int, size)
	for i := range xs {
		xs[i] = 2 * i
	}
	return xs
}()

//go:noinline
func find(xs []int, key int) int {
	for i, x := range xs { // @loop
		if x == key { // @scan
			return i
		}
	}
	return -1
}

//go:noinline
func lookupFew(round int) int {
	found := 0
	for k := 0; k < 50; k++ {
		found += find(table, (round*7+k*13)%(2*size)) // @few
	}
	return found
}

//go:noinline
func lookupMany(round int) int {
	found := 0
	for k := 0; k < 200; k++ {
		found += find(table, (round*11+k*17)%(2*size)) // @many
	}
	return found
}

func main() {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go http.Serve(listener, nil)
	fmt.Printf("listening %d\n", listener.Addr().(*net.TCPAddr).Port)
	sum := 0
	for round := 0; ; round++ {
		sum += lookupFew(round) + lookupMany(round)
	}
}
