class Engine {
  run(): string {
    return "run";
  }
}

class Registry {
  private static made = 0;
  private e = new Engine();

  static get count(): number {
    return Registry.made;
  }

  get current(): Engine {
    return this.e;
  }
}

const reg = new Registry();
reg.current.run();
const n = Registry.count;
