class Point {
  static origin = Point.make(0, 0);

  x: number;
  y: number;

  constructor(x: number, y: number) {
    this.x = x;
    this.y = y;
  }

  static make(x: number, y: number): Point {
    return new Point(x, y);
  }

  static parse(s: string): Point {
    const [x, y] = s.split(",").map(Number);
    return this.make(x, y);
  }

  len(): number {
    return this.x + this.y;
  }
}

class Point3 extends Point {}

Point.parse("1,2").len();
Point3.make(1, 1);
