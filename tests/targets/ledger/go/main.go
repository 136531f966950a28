// A small ledger: the Go twin of the behaviour targets (ledger.py,
// ledger.c, Ledger.java carry the same @markers).
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"

	"ledger/report"
	"ledger/util"
)

func fee(amount int) int {
	charge := amount * 2 / 100 // @fee
	return amount + charge     // @fee-return
}

func entriesFirst(count int) int {
	first := count * 0 // @yield
	return first
}

func checkEntry(value int) int {
	if value < 0 {
		panic(fmt.Sprintf("bad entry %d", value)) // @raise
	}
	return value
}

func tri(n int) int {
	result := 0 // @tri
	if n > 0 {
		result = n + tri(n-1) // @tri-rec
	}
	fmt.Printf("tri(%d)=%d\n", n, result)
	return result // @tri-return
}

func audit(total int) bool {
	return check(total) // @call-late
}

func main() {
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	total := 0 // @main-first
	for i := 0; i < 5; i++ {
		total += i * 100 // @loop
	}
	// @no-code: a comment, no code on this line
	charged := fee(total)                             // @call-fee
	fmt.Println(util.Money(charged))                  // @after-fee
	first := entriesFirst(3)                          // @call-gen
	fmt.Println(report.Banner(first), audit(charged)) // @after-gen
	if mode == "raise" {
		checkEntry(-3) // @call-raise
	}
	if mode == "exit3" {
		os.Exit(3)
	}
	if mode == "kill" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	if mode == "tri" && len(os.Args) > 2 {
		n, _ := strconv.Atoi(os.Args[2])
		tri(n) // @call-tri
	}
	if mode == "sum" {
		added := 0
		for _, text := range os.Args[2:] {
			value, _ := strconv.Atoi(text)
			added += checkEntry(value) // @call-check
		}
		fmt.Printf("sum=%d\n", added)
	}
	fmt.Fprintln(os.Stderr, "done")
} // @main-return
