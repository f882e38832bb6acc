export class Counter {
  count = 0;
  limit = 10;
  stats = { hits: 0, misses: 0 };

  step(by: number): number {
    this.count = this.count + by;
    this.stats.hits = this.stats.hits + 1;
    const over = this.count > this.limit;
    const misses = this.stats.misses;
    const hits = this.stats.hits;
    return over ? hits : misses;
  }
}
