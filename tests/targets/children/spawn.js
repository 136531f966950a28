// Runs a child node process, waits for it, and goes on.
const { spawnSync } = require("child_process");
const child = spawnSync(process.execPath, ["-e", "console.log('child ran')"]);
console.log(String(child.stdout).trim());
console.log("parent done", child.status); // @done
