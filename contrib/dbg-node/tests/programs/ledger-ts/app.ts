// The ledger in TypeScript: dbg builds it with tsc --sourceMap, and the
// types below (gone from the JavaScript) put every line of code on another
// line of the JavaScript than of this file.
import { money } from "./lib/money";

interface Entry {
  label: string;
  cents: number;
}

type Mode = "" | "raise";

class Account {
  balance = 0;

  constructor(public readonly owner: string) {}

  deposit(amount: number): number {
    this.balance += amount; // @deposit
    return this.balance;
  }
}

function fee(amount: number): number {
  const charge: number = Math.floor((amount * 2) / 100); // @fee
  return amount + charge; // @fee-return
}

function main(argv: readonly string[]): number {
  const mode = (argv[2] ?? "") as Mode;
  const entries: Entry[] = [];
  let total = 0; // @main-first
  for (let i = 0; i < 5; i++) {
    total += i * 100; // @loop
    entries.push({ label: `entry ${i}`, cents: i * 100 });
  }
  // @no-code: a comment, no code on this line
  const charged: number = fee(total); // @call-fee
  console.log(money(charged)); // @after-fee
  const account = new Account("ada");
  account.deposit(charged); // @call-deposit
  if (mode === "raise") {
    throw new RangeError(`bad entry ${entries.length}`); // @raise
  }
  return 0; // @main-return
}

process.exitCode = main(process.argv); // @module-main
