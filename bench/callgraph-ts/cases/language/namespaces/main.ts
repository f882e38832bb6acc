import { Fmt } from "./fmt";

namespace App.Util {
  export function log(s: string): string {
    return Fmt.money(s.length);
  }
}

namespace Geometry {
  export function area(w: number, h: number): number {
    return mul(w, h);
  }

  function mul(a: number, b: number): number {
    return a * b;
  }
}

Geometry.area(2, 3);
App.Util.log("x");
