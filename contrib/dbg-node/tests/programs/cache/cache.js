// A lookup service whose cache never forgets: every answer is kept, so the
// heap grows in remember() for as long as it runs; the formatted strings
// of describe() are dropped at once. Usage: node cache.js [rounds]
'use strict';
const seen = [];

function remember(id) {
  seen.push({ id, text: `record ${id} `.repeat(24) });  // @remember
}

function describe(id) {
  return `item ${id}`.repeat(8).length;
}

const rounds = Number(process.argv[2] || 30);
let total = 0;
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < 4000; i++) {
    remember(round * 4000 + i);
    total += describe(i);
  }
  const pause = Date.now() + 25;
  while (Date.now() < pause) total += 0;  // the snapshots come between rounds
}
console.log(seen.length, total);
