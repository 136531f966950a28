// `dbg trace` over goroutines: weigh runs in eight goroutines at once,
// three times in each, and each call returns its own value.
package main

import (
	"fmt"
	"sync"
)

func weigh(item int) int {
	total := item * 10 // @weigh-body
	return total + 1
}

func main() {
	var wg sync.WaitGroup
	results := make([]int, 24)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < 3; k++ {
				results[g*3+k] = weigh(g*3 + k)
			}
		}(g)
	}
	wg.Wait()
	fmt.Println(results) // @main-prints
}
