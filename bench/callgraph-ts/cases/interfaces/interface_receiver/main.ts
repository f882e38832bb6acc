import { Shape, Circle, Square } from "./shapes";

function total(shapes: Shape[]): number {
  let t = 0;
  for (const s of shapes) t += s.area();
  return t;
}

total([new Circle(1), new Square(2)]);
