package main

func check(total int) bool {
	ok := total > 0 // @late
	return ok
}
