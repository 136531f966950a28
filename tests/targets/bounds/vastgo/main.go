// A 10,000,000-element slice and a 100,000-entry map: dlv loads 64 of them, and
// dbg asks it for each further page (tests/faults/test_vast_arrays.py).
package main

import "fmt"

func main() {
	arr := make([]int32, 10000000)
	for i := range arr {
		arr[i] = int32(i)
	}
	m := map[int]int{}
	for i := 0; i < 100000; i++ {
		m[i] = i
	}
	fmt.Println(arr[9999999], len(m)) // @here
	fmt.Println("done")                // @after
}
