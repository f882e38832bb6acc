export function run(): number {
  return 1;
}

export function stop(): number {
  return 0;
}
