export class Repo {
  constructor(protected table: string) {
    connect(table);
  }

  find(id: number): string {
    return this.table + id;
  }
}

function connect(t: string): void {}
