export function help(): string {
  return "help";
}
