export class Gateway {
  charge(cents: number): boolean {
    return cents > 0;
  }
}
