export interface Shape {
  area(): number;
}

export class Circle implements Shape {
  constructor(private r: number) {}
  area(): number {
    return 3 * this.r * this.r;
  }
}

export class Square implements Shape {
  constructor(private s: number) {}
  area(): number {
    return this.s * this.s;
  }
}
