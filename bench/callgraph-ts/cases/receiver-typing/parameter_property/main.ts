import { Gateway } from "./gateway";

class Billing {
  constructor(private gateway: Gateway, readonly currency: string) {}

  bill(cents: number): boolean {
    return this.gateway.charge(cents);
  }
}

new Billing(new Gateway(), "EUR").bill(100);
