class Animal {
  describe(): string {
    return "I am " + this.kind();
  }

  kind(): string {
    return "animal";
  }
}

class Dog extends Animal {
  kind(): string {
    return "dog";
  }
}

const d = new Dog();
d.describe();
