export default class Store {
  items: string[] = [];
  add(item: string): void {
    this.items.push(item);
  }
}
