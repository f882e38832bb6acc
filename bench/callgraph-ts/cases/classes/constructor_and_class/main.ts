class Engine {
  rpm: number;

  constructor(rpm: number) {
    this.rpm = 0;
    this.init(rpm);
  }

  init(rpm: number): void {
    this.rpm = rpm;
  }

  start(): number {
    return this.rpm;
  }
}

function boot(): Engine {
  return new Engine(800);
}

boot().start();
