// Reads lines from its stdin, a prompt before each: as many as its argument
// says (default 3), or up to the end of the file. For tests/test_stdin.py.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	wanted := 3
	if len(os.Args) > 1 {
		wanted, _ = strconv.Atoi(os.Args[1])
	}
	in := bufio.NewReader(os.Stdin)
	got := 0 // @before
	for got < wanted {
		fmt.Printf("line %d? ", got+1)
		text, err := in.ReadString('\n')
		if err != nil && text == "" {
			fmt.Printf("EOF after %d lines\n", got)
			break
		}
		got++ // @got
		fmt.Printf("read %d: %s\n", got, strings.TrimRight(text, "\n"))
	}
	fmt.Printf("done: %d lines\n", got) // @done
}
