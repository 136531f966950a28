export interface Greeting {
  name: string;
  text: string;
}

export function greet(name: string): Greeting {
  const text = `hello ${name}`; // @greet
  return { name, text };
}
