package util

import "fmt"

func Money(cents int) string {
	text := fmt.Sprintf("%d.%02d", cents/100, cents%100) // @fmt
	return text
}
