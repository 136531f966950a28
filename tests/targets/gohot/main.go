// A Go hot spot for the profilers: find scans a table linearly and is
// called from two sites of unequal cost (lookupMany asks four times as much
// as lookupFew). With the argument "fixed" (or FIXED=1 in a test) find is a
// binary search instead: the fix `dbg profile diff` shows.
package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
)

const size = 4000

var table = func() []int {
	xs := make([]int, size)
	for i := range xs {
		xs[i] = 2 * i
	}
	return xs
}()

var fixed = os.Getenv("FIXED") == "1"

//go:noinline
func find(xs []int, key int) int {
	if fixed {
		i := sort.SearchInts(xs, key)
		if i < len(xs) && xs[i] == key {
			return i
		}
		return -1
	}
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

func work(rounds int) int {
	sum := 0
	for r := 0; r < rounds; r++ {
		sum += lookupFew(r)
		sum += lookupMany(r)
	}
	return sum
}

func main() {
	rounds := 400
	if len(os.Args) > 1 {
		rounds, _ = strconv.Atoi(os.Args[1])
	}
	if len(os.Args) > 2 && os.Args[2] == "fixed" {
		fixed = true
	}
	fmt.Println("sum", work(rounds))
}
