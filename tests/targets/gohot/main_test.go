package main

import (
	"os"
	"strconv"
	"testing"
)

// TestWork does a fixed work (ROUNDS rounds, default 600), long enough for
// the CPU profile of `go test -cpuprofile` to see where it goes.
func TestWork(t *testing.T) {
	rounds := 600
	if text := os.Getenv("ROUNDS"); text != "" {
		rounds, _ = strconv.Atoi(text)
	}
	if work(rounds) <= 0 {
		t.Fatal("no key was found")
	}
}
