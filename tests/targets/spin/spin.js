// Runs until interrupted: a loop that never ends (with a timer, so that
// the event loop turns too).
let count = 0;
function tick() {
  for (let i = 0; i < 1000; i++) {
    count++; // @loop
  }
  setTimeout(tick, 1);
}
tick();
