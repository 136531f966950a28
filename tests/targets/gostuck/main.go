// dbg stacks' Go target: a goroutine holds a mutex while it waits on a
// channel nobody sends on; another blocks on that mutex; main sleeps in a
// loop, so the Go runtime never sees a deadlock of every goroutine.
package main

import (
	"fmt"
	"sync"
	"time"
)

var ledger sync.Mutex

func settle(done chan int) {
	ledger.Lock()
	<-done // @settle-waits
}

func audit(wg *sync.WaitGroup) {
	defer wg.Done()
	ledger.Lock() // @audit-blocks
	ledger.Unlock()
}

func main() {
	done := make(chan int)
	go settle(done)
	time.Sleep(50 * time.Millisecond)
	var wg sync.WaitGroup
	wg.Add(1)
	go audit(&wg)
	for {
		time.Sleep(100 * time.Millisecond) // @main-sleeps
		fmt.Print("")
	}
}
