// A ring of numbers: `dbg set` on properties and array elements.
class Ring {
  constructor() {
    this.cap = 4;
    this.items = [10, 20, 30];
  }
}

function twice(x) {
  return x * 2; // @twice
}

function main() {
  const r = new Ring();
  const items = [1, 2, 3];
  const total = twice(r.cap); // @call
  console.log(total, r.cap, r.items[2], items[0]); // @print
}

main();
