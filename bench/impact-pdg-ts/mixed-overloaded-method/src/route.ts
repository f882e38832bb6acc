export class Alpha {
  process(value: number): number {
    return value + 1;
  }
}

export class Beta {
  process(value: number): number {
    return value * 2;
  }
}

export function pick(x: number, useAlpha: boolean): number {
  const alpha = new Alpha();
  const beta = new Beta();
  const doubled = x * 2;
  let out = 0;
  if (useAlpha) {
    out = alpha.process(doubled);
  } else {
    out = beta.process(x);
  }
  return out;
}
