export function parseNum(s: string): number {
  return Number(s);
}
