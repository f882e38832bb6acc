export function today(): string {
  return "2024-01-01";
}
