export function computeTotal(xs: number[]): number {
  let t = 0;
  for (const x of xs) t += x;
  return t;
}

export default function makeReport(): string {
  return String(computeTotal([1, 2]));
}
