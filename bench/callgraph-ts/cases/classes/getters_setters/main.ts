function toF(c: number): number {
  return c * 1.8 + 32;
}

class Temp {
  private c = 0;

  get fahrenheit(): number {
    return toF(this.c);
  }

  set celsius(v: number) {
    this.c = clamp(v);
  }

  get celsius(): number {
    return this.c;
  }
}

function clamp(v: number): number {
  return Math.max(-273, v);
}

const t = new Temp();
t.celsius = 20;
const f = t.fahrenheit;
