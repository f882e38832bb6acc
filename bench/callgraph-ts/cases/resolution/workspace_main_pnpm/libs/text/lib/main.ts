export function words(s: string): string[] {
  return s.split(" ");
}
