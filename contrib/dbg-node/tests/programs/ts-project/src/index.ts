import { greet, Greeting } from "./greet";
import { shout } from "../shared/shout";

const names: string[] = ["ada", "grace"];
const said: Greeting[] = names.map((name) => greet(name));
console.log(shout(said.map((g) => g.text).join("; "))); // @print
