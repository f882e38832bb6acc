export function circleArea(r: number): number {
  return 3 * r * r;
}

export function describe(): string {
  return "circle";
}
