export class Store {
  private items: number[] = [];
  add(v: number): void {
    this.items.push(v);
  }
  clear(): void {
    this.items = [];
  }
  report(): string {
    return String(this.items.length);
  }
  sync(v: number, reset: boolean): string {
    if (reset) {
      this.clear();
    }
    this.add(v);
    return this.report();
  }
}
