export function load(raw: string, fallback: number): number {
  let value = fallback;
  let attempts = 0;
  try {
    attempts = attempts + 1;
    value = Number(JSON.parse(raw));
  } catch (err) {
    value = -1;
  } finally {
    attempts = attempts * 10;
  }
  return value + attempts;
}
