// Package tally counts words; its test fails with a long message, as a
// test printing a whole slice does.
package tally

import "strings"

type Entry struct {
	Word  string
	Count int
}

// Count gives each word's count, in the order the words first appear.
func Count(text string) []Entry {
	var out []Entry
	index := map[string]int{}
	for _, word := range strings.Fields(text) {
		if i, ok := index[word]; ok {
			out[i].Count++
			continue
		}
		index[word] = len(out)
		out = append(out, Entry{word, 1})
	}
	return out
}
