"use strict";
// A small ledger: the JavaScript twin of dbg's behaviour targets (ledger.py,
// ledger.c, main.go, Ledger.java carry the same @markers).

const { money } = require("./lib/money");

class Account {
  constructor(owner) {
    this.owner = owner;
    this.balance = 0;
  }

  deposit(amount) {
    this.balance += amount; // @deposit
    return this.balance;
  }
}

function fee(amount) {
  const charge = Math.floor((amount * 2) / 100); // @fee
  return amount + charge; // @fee-return
}

function checkEntry(value) {
  if (value < 0) {
    throw new RangeError(`bad entry ${value}`); // @raise
  }
  return value;
}

function main(argv) {
  const mode = argv[2] || "";
  let total = 0; // @main-first
  for (let i = 0; i < 5; i++) {
    total += i * 100; // @loop
  }
  // @no-code: a comment, no code on this line
  const charged = fee(total); // @call-fee
  console.log(money(charged)); // @after-fee
  const account = new Account("ada");
  account.deposit(charged); // @call-deposit
  if (mode === "raise") {
    checkEntry(-3); // @call-raise
  }
  if (mode === "exit3") {
    process.exit(3);
  }
  if (mode === "kill") {
    process.kill(process.pid, "SIGKILL");
  }
  console.error("done");
  return 0; // @main-return
}

process.exitCode = main(process.argv); // @module-main
