// Package calc is tested by calc_test.go: one test passes, two fail.
package calc

// Add adds two numbers.
func Add(a, b int) int {
	sum := a + b // @helper
	return sum
}
