import { Cache } from "./cache";

class Resolver {
  private cache = new Cache();

  resolve(k: string): string {
    const hit = this.cache.get(k);
    if (hit === undefined) {
      this.cache.put(k, "v");
      return "v";
    }
    return hit;
  }
}

new Resolver().resolve("a");
