export function summary(order: { id: string; qty: number; price: number }, tags: string[]): string {
  const { qty, price } = order;
  const [head, ...rest] = tags;
  const total = qty * price;
  const parts = [...rest, head];
  const copy = { ...order, total };
  return `${copy.id}:${parts.length}:${total}`;
}
