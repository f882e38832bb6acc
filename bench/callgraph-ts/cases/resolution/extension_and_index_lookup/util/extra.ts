export function fromDir(): string {
  return "dir";
}
