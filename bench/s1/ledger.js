// A small ledger: the program the S1 benchmark debugs.
"use strict";

function post(entries) {
    let balance = 0;
    let opening = 0;
    for (let number = 0; number < entries.length; number++) {
        const amount = entries[number];
        if (number === 0) {
            opening = amount; // @loop
        }
        balance += amount;
        if (balance < 0) {
            balance = 0;
        }
    }
    return balance - opening;
}

function main() {
    const entries = [120, -30, 45, -200, 80, 15, -5, 60, 10, -25, 35, 5];
    console.log("change", post(entries));
}

main();
