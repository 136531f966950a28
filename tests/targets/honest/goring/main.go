// A ring of numbers: `dbg set` on fields, elements and pointers, and
// expressions that call functions (delve's `call`).
package main

import "fmt"

type Ring struct {
	Cap   int
	Items []int
	Name  string
}

func twice(x int) int {
	return x * 2 // @twice
}

func main() {
	r := Ring{Cap: 4, Items: []int{10, 20, 30}, Name: "r"}
	rp := &r
	arr := [3]int{1, 2, 3}
	total := twice(r.Cap) // @call
	fmt.Println(total, rp.Cap, arr[1], r.Items[0], rp.Name) // @print
}
