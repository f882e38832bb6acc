abstract class Handler {
  handle(x: number): number {
    return this.transform(this.validate(x));
  }

  validate(x: number): number {
    return x;
  }

  abstract transform(x: number): number;
}

abstract class Scaled extends Handler {
  transform(x: number): number {
    return x * this.factor();
  }

  abstract factor(): number;
}

class Double extends Scaled {
  factor(): number {
    return 2;
  }

  validate(x: number): number {
    return Math.abs(x);
  }
}

new Double().handle(3);
