interface Speaker {
  speak(): string;
}

interface Greeter extends Speaker {
  greet(): string;
}

class Person implements Greeter {
  speak(): string {
    return "hi";
  }
  greet(): string {
    return this.speak();
  }
}

class Parrot implements Speaker {
  speak(): string {
    return "squawk";
  }
}

class Radio {
  speak(): string {
    return "static";
  }
}

function chorus(a: Speaker, b: Greeter): string {
  return a.speak() + b.greet();
}

chorus(new Parrot(), new Person());
new Radio();
