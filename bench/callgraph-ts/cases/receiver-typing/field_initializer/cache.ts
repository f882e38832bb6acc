export class Cache {
  get(k: string): string | undefined {
    return undefined;
  }

  put(k: string, v: string): void {}
}
