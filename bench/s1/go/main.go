// A small ledger: the program the S1 benchmark debugs.
package main

import "fmt"

func post(entries []int) int {
	balance := 0
	opening := 0
	for number, amount := range entries {
		if number == 0 {
			opening = amount // @loop
		}
		balance += amount
		if balance < 0 {
			balance = 0
		}
	}
	return balance - opening
}

func main() {
	entries := []int{120, -30, 45, -200, 80, 15, -5, 60, 10, -25, 35, 5}
	fmt.Println("change", post(entries))
}
