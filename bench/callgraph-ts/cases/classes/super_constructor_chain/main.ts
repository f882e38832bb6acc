class Base {
  constructor(public name: string) {
    register(name);
  }

  greet(): string {
    return "hi " + this.name;
  }
}

class Middle extends Base {}

class Leaf extends Middle {
  constructor() {
    super("leaf");
  }

  greet(): string {
    return super.greet() + "!";
  }
}

function register(n: string): void {}

new Leaf().greet();
