class Shape {
  private w = 1;

  get width(): number {
    return scale(this.w);
  }

  set width(v: number) {
    this.w = check(v);
  }
}

class Box extends Shape {
  grow(): void {
    this.width = this.width + 1;
  }
}

function scale(n: number): number {
  return n * 2;
}

function check(n: number): number {
  return n < 0 ? 0 : n;
}

function measure(s: Shape): number {
  return s.width;
}

const b = new Box();
b.grow();
measure(b);
