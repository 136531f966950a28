// The program the native benchmark steps through (Go twin of target_loop.py).
package main

import "fmt"

func work(n int) int {
	total := 0
	for i := 0; i < n; i++ {
		total += i * i // @step
	}
	return total
}

func main() {
	values := make([]int, 10)
	result := work(1000) // @start
	fmt.Println("result", result, len(values))
}
