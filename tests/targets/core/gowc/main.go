// A word counter that panics: main hands count a nil counter. Run with
// GOTRACEBACK=crash, the runtime then aborts and the kernel writes a core;
// tests/test_core.py makes one.
package main

import "fmt"

type counter struct {
	name  string
	words int
}

func count(c *counter, text string) int {
	words := 0
	inWord := false
	for _, r := range text {
		if r == ' ' {
			inWord = false
		} else if !inWord {
			inWord = true
			words++
		}
	}
	c.words = words // @crash
	return words
}

func main() {
	var c *counter
	total := count(c, "the quick brown fox") // @call
	fmt.Println(total, "words")
}
