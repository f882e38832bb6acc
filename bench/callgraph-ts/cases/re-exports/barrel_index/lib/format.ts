export function pad(s: string): string {
  return " " + s;
}
