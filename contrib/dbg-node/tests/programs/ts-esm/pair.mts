// An ES module in TypeScript: built to pair.mjs (module nodenext).
import { readFileSync } from "node:fs";

type Pair = [string, number];

export function pair(n: number): Pair {
  const label: string = `n${n}`; // @label
  return [label, n];
}

const made: Pair = pair(typeof readFileSync === "function" ? 3 : 0); // @made
console.log(made);
