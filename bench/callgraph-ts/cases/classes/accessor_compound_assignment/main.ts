class Meter {
  private v = 0;

  get level(): number {
    return this.v;
  }

  set level(x: number) {
    this.v = x;
  }
}

class Panel {
  constructor(private meter: Meter) {}

  bump(): number {
    this.meter.level += 5;
    return this.meter.level;
  }
}

const p = new Panel(new Meter());
p.bump();
