package report

import "fmt"

func Banner(value int) string {
	line := fmt.Sprintf("== %d ==", value) // @banner
	return line
}
