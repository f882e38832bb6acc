class Account {
  balance: number;

  constructor(initial: number) {
    this.balance = initial;
  }

  describe(): string {
    return String(this.balance);
  }
}

class Savings extends Account {
  rate: number;

  constructor(initial: number, rate: number) {
    super(initial);
    this.rate = rate;
  }

  describe(): string {
    return super.describe() + "@" + this.rate;
  }
}

new Savings(10, 2).describe();
