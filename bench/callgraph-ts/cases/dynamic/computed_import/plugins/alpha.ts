export function activate(): string {
  return "alpha";
}
