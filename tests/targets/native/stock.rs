// A stock keeper that panics when asked for more than it has: Rust's
// standard types (String, Vec, HashMap, Option) in a struct, for the
// native backends' Rust support.
use std::collections::HashMap;

struct Stock {
    names: Vec<String>,
    counts: HashMap<String, u32>,
    note: Option<String>,
}

fn take(stock: &mut Stock, name: &str, wanted: u32) -> u32 {
    let have = stock.counts.get(name).copied().unwrap_or(0); // @have
    if have < wanted {
        panic!("not enough {}: have {}, want {}", name, have, wanted); // @panic
    }
    stock.counts.insert(name.to_string(), have - wanted);
    have - wanted
}

fn main() {
    let mut stock = Stock {
        names: vec!["kiwi".to_string(), "fig".to_string()],
        counts: HashMap::new(),
        note: Some("fresh".to_string()),
    };
    stock.counts.insert("kiwi".to_string(), 3);
    let label = String::from("kiwi");
    let left = take(&mut stock, &label, 2); // @first
    println!("{} left of {} names", left, stock.names.len());
    take(&mut stock, &label, 5); // @second
}
