// A report over a price list that reads its settings file again for every
// item (a synchronous read on the hot path); `cached` reads it once.
// Usage: node report.js [cached] [rounds=N] [forever]
'use strict';
const fs = require('fs');
const path = require('path');

const SETTINGS = path.join(__dirname, 'settings.json');
const args = process.argv.slice(2);
const cached = args.includes('cached');
const rounds = Number((args.find((a) => a.startsWith('rounds=')) || 'rounds=30').slice(7));
let kept = null;

function settings() {
  if (cached && kept) return kept;
  kept = JSON.parse(fs.readFileSync(SETTINGS, 'utf8'));
  return kept;
}

function priceOf(item) {
  const s = settings();
  return Math.round(item.cost * (1 + s.tax) * 100) / 100;
}

function totals(items) {
  let sum = 0;
  for (const item of items) sum += priceOf(item);
  return sum;
}

function discounts(items) {
  let off = 0;
  for (const item of items.slice(0, items.length / 4)) off += priceOf(item) * 0.1;
  return off;
}

const items = Array.from({ length: 200 }, (_, i) => ({ cost: 1 + (i % 17) }));
let grand = 0;
do {
  for (let r = 0; r < rounds; r++) grand += totals(items) - discounts(items);
} while (args.includes('forever'));
console.log(grand.toFixed(2));
