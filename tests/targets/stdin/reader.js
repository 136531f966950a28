// Reads lines from its stdin, a prompt before each: as many as its argument
// says (default 3), or up to the end of the file. For tests/test_stdin.py.
const readline = require("readline");

async function main() {
  const wanted = process.argv.length > 2 ? Number(process.argv[2]) : 3;
  const input = readline.createInterface({ input: process.stdin });
  const lines = input[Symbol.asyncIterator]();
  let got = 0; // @before
  while (got < wanted) {
    process.stdout.write(`line ${got + 1}? `);
    const next = await lines.next();
    if (next.done) {
      console.log(`EOF after ${got} lines`);
      break;
    }
    got++; // @got
    console.log(`read ${got}: ${next.value}`);
  }
  console.log(`done: ${got} lines`); // @done
  input.close();
}

main();
