export function fromFile(): string {
  return "file";
}
