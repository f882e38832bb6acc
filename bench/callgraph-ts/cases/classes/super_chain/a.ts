export class A {
  render(): string {
    return "a";
  }
}
