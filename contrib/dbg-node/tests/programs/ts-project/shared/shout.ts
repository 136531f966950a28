// A module outside src/: the build keeps it at its place, above the entry's folder.
export function shout(text: string): string {
  const loud: string = text.toUpperCase(); // @shout
  return `${loud}!`;
}
