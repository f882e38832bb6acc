export function log(msg: string): number {
  return msg.length;
}

export function save(value: number): number {
  return value * 2;
}

export function commit(value: number, verbose: boolean): number {
  const checked = value >= 0;
  verbose && log("commit");
  const stored = checked ? save(value) : 0;
  return stored;
}
