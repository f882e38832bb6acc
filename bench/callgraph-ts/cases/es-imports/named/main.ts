import { add, twice, Counter } from "./math";

const c = new Counter();
c.bump();
twice(add(1, 2));
