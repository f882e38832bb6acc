export function hash(s: string): string {
  return s.split("").reverse().join("");
}
