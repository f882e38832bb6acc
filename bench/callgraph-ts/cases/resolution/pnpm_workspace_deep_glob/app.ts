import { square } from "@org/math";
import { mul } from "@org/math/src/main";

export function area(n: number): number {
  return square(n) + mul(n, 2);
}

area(3);
