// An error with a cause (ES2022), and a value thrown that is no Error: for
// `dbg exception`.
function readConfig(text) {
  return JSON.parse(text); // @parse
}

function load(text) {
  try {
    return readConfig(text); // @read
  } catch (err) {
    throw new Error("bad config", { cause: err }); // @wrap
  }
}

if (process.argv[2] === "plain") {
  throw "plain words"; // @plain
}
load("{oops"); // @load
