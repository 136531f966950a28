// Writes its pid to the file named by its argument, then loops until killed.
require("fs").writeFileSync(process.argv[2], String(process.pid));
let count = 0;
for (;;) {
  count++; // @loop
}
