// A TypeScript program that spends its time in one function, for
// `dbg profile` of the JavaScript tsc makes of it (with its map).
interface Tally {
  rounds: number;
  sum: number;
}

type Rounds = number;

function spin(rounds: Rounds): Tally {
  let sum = 0;
  for (let i = 0; i < rounds; i++) {
    sum = (sum + Math.sqrt(i) * 31) % 1000003; // @hot
  }
  return { rounds, sum };
}

const started = Date.now();
let tally: Tally = { rounds: 0, sum: 0 };
while (Date.now() - started < 600) {
  tally = spin(200_000);
}
console.log(tally.sum > 0);
