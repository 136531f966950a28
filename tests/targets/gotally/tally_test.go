package tally

import (
	"fmt"
	"strings"
	"testing"
)

func TestCountWants(t *testing.T) {
	words := []string{}
	for i := 0; i < 60; i++ {
		words = append(words, fmt.Sprintf("word%02d", i))
	}
	got := Count(strings.Join(words, " ") + " hello hello")
	if len(got) != 2 {
		t.Errorf("got %d entries, want 2: %v", len(got), got) // @wants-fails
	}
}

func TestCountFloods(t *testing.T) {
	got := Count(strings.Repeat("spam ", 3) + strings.Repeat("x", 5000))
	if len(got) != 1 {
		t.Fatalf("got %d entries, want 1: %v", len(got), got) // @floods-fails
	}
}
