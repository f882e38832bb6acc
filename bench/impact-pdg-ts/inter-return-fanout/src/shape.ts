export function area(w: number, h: number): number {
  return w * h;
}
export function perimeter(w: number, h: number): number {
  return 2 * (w + h);
}
export function describe(w: number, h: number): string {
  return `${area(w, h)}/${perimeter(w, h)}`;
}
