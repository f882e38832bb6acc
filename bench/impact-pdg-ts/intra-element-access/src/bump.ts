export function bump(scores: Record<string, number>, key: string, xs: number[]): number {
  scores["base"] = 1;
  xs[0] = scores["base"] + 1;
  const k = scores[key];
  const first = xs[0];
  const other = scores["bonus"];
  return first + k + other;
}
