import { A } from "./a";

export class B extends A {
  extra(): string {
    return "b";
  }
}
