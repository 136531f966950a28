// A shopping cart, the Go twin of cart.py: a goroutine and a panic too.
package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

type Item struct {
	Name     string
	Price    float64
	Quantity int
}

type Cart struct {
	Items []Item
}

func (c *Cart) Add(name string, price float64, quantity int) {
	c.Items = append(c.Items, Item{name, price, quantity}) // @add
}

func (c *Cart) Total() float64 {
	total := 0.0 // @total-first
	for _, item := range c.Items {
		cost := item.Price * float64(item.Quantity) // @loop
		total += cost
	}
	return total // @total-return
}

func apply_discount(total float64, percent int) float64 {
	discount := total * float64(percent) / 100 // @discount
	return total - discount                    // @discount-return
}

func count(n int, wg *sync.WaitGroup, out chan<- int) {
	defer wg.Done()
	sum := 0
	for i := 1; i <= n; i++ {
		sum += i // @worker
	}
	out <- sum
}

func main() {
	cart := &Cart{} // @main-first
	cart.Add("apple", 0.5, 6)
	cart.Add("bread", 2.25, 1)
	cart.Add("coffee", 7.0, 2)
	total := cart.Total() // @call-total
	fmt.Printf("subtotal: %.2f\n", total)
	final := apply_discount(total, 10)                // @call-discount
	fmt.Printf("total after discount: %.2f\n", final) // @after-discount

	var wg sync.WaitGroup
	sums := make(chan int, 1)
	wg.Add(1)
	go count(4, &wg, sums)
	wg.Wait()
	fmt.Println("worker sum:", <-sums)

	if len(os.Args) > 1 && os.Args[1] == "panic" {
		var items []Item
		fmt.Println(items[3].Name) // @panic
	}
	if len(os.Args) > 1 && os.Args[1] == "sleep" {
		time.Sleep(60 * time.Second) // @sleep
	}
	if len(os.Args) > 1 && os.Args[1] == "exit3" {
		os.Exit(3)
	}
	fmt.Fprintln(os.Stderr, "done")
}
