export class Base {
  name: string;

  constructor(name: string) {
    this.name = name;
    this.setup();
  }

  setup(): void {}
}
