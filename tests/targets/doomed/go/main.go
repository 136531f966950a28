// Writes its pid to the file named by its argument, then loops until killed.
package main

import (
	"os"
	"strconv"
)

func main() {
	os.WriteFile(os.Args[1], []byte(strconv.Itoa(os.Getpid())), 0o644)
	count := 0
	for {
		count++ // @loop
	}
}
