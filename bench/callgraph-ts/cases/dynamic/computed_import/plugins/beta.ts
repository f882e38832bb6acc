export function activate(): string {
  return "beta";
}
