// The Rust twin of cart.py, for the native backends.
struct Item {
    name: &'static str,
    price: f64,
    quantity: u32,
}

fn apply_discount(total: f64, percent: u32) -> f64 {
    let discount = total * percent as f64 / 100.0; // @discount
    total - discount // @discount-return
}

fn main() {
    let items = vec![
        Item { name: "apple", price: 0.5, quantity: 6 },
        Item { name: "bread", price: 2.25, quantity: 1 },
        Item { name: "coffee", price: 7.0, quantity: 2 },
    ];
    let mut total = 0.0;
    for item in &items {
        total += item.price * item.quantity as f64; // @loop
    }
    println!("subtotal: {:.2} for {}", total, items[0].name);
    let result = apply_discount(total, 10); // @call-discount
    println!("total after discount: {:.2}", result);
}
