export interface Shape {
  area(): number;
}

export abstract class Base {
  abstract perimeter(): number;
}
