abstract class Store {
  abstract save(k: string): void;

  saveAll(keys: string[]): void {
    for (const k of keys) this.save(k);
  }
}

class MemoryStore extends Store {
  save(k: string): void {}
}

class DiskStore extends Store {
  save(k: string): void {}
}

function persist(store: Store): void {
  store.save("one");
  store.saveAll(["a", "b"]);
}

persist(new MemoryStore());
persist(new DiskStore());
