/** Cents as dollars: the module is required when app.ts's first line runs. */
export type Cents = number;

export function money(cents: Cents): string {
  const whole: number = Math.floor(cents / 100); // @money
  return `$${whole}.${String(cents % 100).padStart(2, "0")}`;
}
