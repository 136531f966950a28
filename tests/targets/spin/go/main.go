// Runs until interrupted: a loop that never ends, with a short sleep.
package main

import "time"

func main() {
	count := 0
	for {
		count++ // @loop
		if count%1000 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}
