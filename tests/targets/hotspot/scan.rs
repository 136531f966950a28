// The Rust twin of scan.c: `find` scans a table linearly, called from two
// sites of unequal cost (lookup_many four times lookup_few's).
// usage: scan [ROUNDS]
use std::env;

const SIZE: usize = 4000;

#[inline(never)]
fn find(xs: &[i64], key: i64) -> i64 {
    for (i, x) in xs.iter().enumerate() {
        if *x == key { // @scan
            return i as i64;
        }
    }
    -1
}

#[inline(never)]
fn lookup_few(xs: &[i64], round: i64) -> i64 {
    let mut found = 0;
    for k in 0..50 {
        found += find(xs, (round * 7 + k * 13) % (2 * SIZE as i64)); // @few
    }
    found
}

#[inline(never)]
fn lookup_many(xs: &[i64], round: i64) -> i64 {
    let mut found = 0;
    for k in 0..200 {
        found += find(xs, (round * 11 + k * 17) % (2 * SIZE as i64)); // @many
    }
    found
}

fn main() {
    let rounds: i64 = env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(400);
    let table: Vec<i64> = (0..SIZE as i64).map(|i| 2 * i).collect();
    let mut sum = 0;
    for r in 0..rounds {
        sum += lookup_few(&table, r);
        sum += lookup_many(&table, r);
    }
    println!("sum {}", sum);
}
