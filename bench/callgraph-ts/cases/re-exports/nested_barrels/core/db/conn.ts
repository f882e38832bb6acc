export class Connection {
  open(): boolean {
    return true;
  }
}

export function connect(): Connection {
  const c = new Connection();
  c.open();
  return c;
}
