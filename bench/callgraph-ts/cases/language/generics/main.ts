class Box<T> {
  constructor(readonly value: T) {}

  map<U>(f: (t: T) => U): Box<U> {
    return new Box(f(this.value));
  }
}

interface HasId {
  id(): string;
}

class User implements HasId {
  id(): string {
    return "u1";
  }
}

function firstId<T extends HasId>(xs: T[]): string {
  return xs[0].id();
}

function double(n: number): number {
  return n * 2;
}

new Box(2).map(double);
firstId([new User()]);
