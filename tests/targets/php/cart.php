<?php
// A shopping cart, cart.py's PHP twin for the conformance suite and the
// testing kit's suite (the markers of both: @loop, @call-fee, @fee...).

class Cart
{
    private array $items = [];

    public function add(string $name, float $price, int $quantity = 1): void
    {
        $this->items[] = ['name' => $name, 'price' => $price, 'quantity' => $quantity];
    }

    public function total(): float
    {
        $total = 0; // @total-first
        foreach ($this->items as $item) {
            $cost = $item['price'] * $item['quantity']; // @loop
            $total += $cost;
        }
        return $total; // @total-return
    }
}

function fee(float $amount): float
{
    $charge = $amount * 2 / 100; // @fee
    return $amount + $charge; // @fee-return
}

function apply_discount(float $total, int $percent): float
{
    $discount = $total * $percent / 100.0; // @discount
    return $total - $discount; // @discount-return
}

function check_entry(int $value): int
{
    if ($value < 0) {
        throw new InvalidArgumentException("bad entry $value"); // @raise
    }
    return $value;
}

function main(array $argv): int
{
    $mode = $argv[1] ?? '';
    $cart = new Cart(); // @main-first
    $cart->add('apple', 0.5, 6);
    $cart->add('bread', 2.25);
    $cart->add('coffee', 7.0, 2);
    $total = $cart->total(); // @call-total
    $charged = fee($total); // @call-fee
    printf("subtotal: %.2f fee: %.2f\n", $total, $charged);
    $final = apply_discount($total, 10); // @call-discount
    printf("total after discount: %.2f\n", $final); // @after-discount
    if ($mode === 'raise') {
        check_entry(-3); // @call-raise
    }
    if ($mode === 'spin') {
        $turns = 0;
        while (true) {
            $turns++; // @spin
        }
    }
    if ($mode === 'exit3') {
        exit(3);
    }
    fwrite(STDERR, "done\n");
    return 0;
}

// Run as a script, not when a test loads its functions.
if (realpath($_SERVER['argv'][0] ?? '') === __FILE__) { // @entry
    exit(main($_SERVER['argv'])); // @module-main
}
