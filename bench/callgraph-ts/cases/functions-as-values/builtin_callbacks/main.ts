function inc(n: number): number {
  return n + 1;
}

function show(n: number): void {}

function tick(): void {}

function onValue(v: number): number {
  return v;
}

function main(): void {
  const xs = [1, 2].map(inc);
  xs.forEach((x) => show(x));
  setTimeout(tick, 0);
  Promise.resolve(1).then(onValue);
}

main();
