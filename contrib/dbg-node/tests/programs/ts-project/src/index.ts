import { greet, Greeting } from "./greet";

const names: string[] = ["ada", "grace"];
const said: Greeting[] = names.map((name) => greet(name));
console.log(said.map((g) => g.text).join("; ")); // @print
