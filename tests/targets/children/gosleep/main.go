// Sleeps forever, with a child process (sleep 300) of its own: to attach to.
package main

import (
	"os/exec"
	"time"
)

func main() {
	child := exec.Command("sleep", "300")
	_ = child.Start()
	for {
		time.Sleep(50 * time.Millisecond)
	}
}
