export function squareArea(s: number): number {
  return s * s;
}
