export class Pipeline {
  execute(): string {
    return this.prepare() + this.finish();
  }

  prepare(): string {
    return "p";
  }

  finish(): string {
    return "f";
  }
}
