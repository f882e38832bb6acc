class Counter {
  n = 0;

  inc(): void {
    this.n++;
  }
}

class Button {
  constructor(private onClick: () => void) {}

  click(): void {
    this.onClick();
  }
}

const c = new Counter();
const bound = c.inc.bind(c);
bound();
new Button(bound).click();
