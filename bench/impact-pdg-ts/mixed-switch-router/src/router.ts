export function onCreate(id: number): number { return id + 1; }
export function onDelete(id: number): number { return -id; }
export function onOther(id: number): number { return 0 * id; }

export function route(op: string, id: number): number {
  let out = 0;
  switch (op) {
    case "create":
      out = onCreate(id);
      break;
    case "delete":
      out = onDelete(id);
      break;
    default:
      out = onOther(id);
  }
  return out;
}
