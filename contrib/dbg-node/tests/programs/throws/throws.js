// Throws of several classes, caught and not: for `dbg catch CLASS`.
class ParseError extends Error {}
class DeepError extends ParseError {}

function parse(text) {
  try { JSON.parse("{bad"); } catch (e) { }  // @syntax: a SyntaxError, caught
  try { null.x; } catch (e) { }  // @type: a TypeError, caught
  try { throw new DeepError("deep " + text); } catch (e) { }  // @deep: a ParseError's subclass
  return text.length;
}

console.log(parse("abc"));
throw new RangeError("the end");  // @uncaught
