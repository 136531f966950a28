// A Go program that deadlocks: main waits for a WaitGroup whose worker
// never calls Done, and every goroutine ends up asleep, so the runtime
// ends it with "fatal error: all goroutines are asleep - deadlock!".
package main

import (
	"fmt"
	"sync"
)

func tally(results chan int, wg *sync.WaitGroup) {
	results <- 3 // @tally-sends
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	results := make(chan int)
	wg.Add(1)
	go tally(results, &wg)
	fmt.Println("waiting for tally")
	wg.Wait() // @main-waits
	fmt.Println(<-results)
}
