export function nextId(): number {
  return 1;
}
