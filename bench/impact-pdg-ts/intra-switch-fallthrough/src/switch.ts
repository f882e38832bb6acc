export function price(kind: string, base: number): number {
  let rate = 1;
  let fee = 0;
  switch (kind) {
    case "gold":
      rate = 0.8;
    // falls through
    case "silver":
      fee = 5;
      break;
    default:
      fee = 10;
  }
  const label = kind.toUpperCase();
  return base * rate + fee + label.length * 0;
}
