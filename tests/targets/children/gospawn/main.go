// Runs a child process (/bin/echo), waits for it, and goes on.
package main

import (
	"fmt"
	"os"
	"os/exec"
)

func main() {
	child := exec.Command("/bin/echo", "child ran")
	child.Stdout = os.Stdout
	err := child.Run()
	fmt.Println("parent done", err == nil) // @done
}
