// Async chains, closures and object values, for dbg's node tests:
// `node orders.js` runs through; `node orders.js reject` rejects a promise
// nobody handles, deep in an await chain.
"use strict";

const owners = new Map([[1, { id: 1, name: "ada" }], [2, { id: 2, name: "bob" }]]);

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function loadOrder(id) {
  await delay(1);
  const order = { id, name: "x", items: [1, 2, 3] };
  return order; // @loaded
}

async function checkout(id) {
  const order = await loadOrder(id); // @await-load
  if (order.id < 0) throw new RangeError("no order " + order.id); // @reject
  return order;
}

function makeCounter(start) {
  let count = start;
  const step = 2;
  return function bump(by) {
    const before = count;
    if (by > 0) {
      const doubled = by * step;
      count += doubled; // @bump
    }
    return before;
  };
}

function describe(id) {
  const made = { id, name: "x", tags: ["a", "b"], owner: { name: "ada" }, owners };
  return made; // @describe
}

async function main(mode) {
  const counter = makeCounter(10);
  counter(1);
  const made = describe(3); // @call-describe
  const order = await checkout(mode === "reject" ? -3 : 3); // @await-checkout
  await loadOrder(4).then((later) => {
    console.log("later", later.id); // @then
  });
  console.log(made.id, order.id, owners.size);
}

main(process.argv[2]);
