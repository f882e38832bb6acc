import { Base } from "./base";

class Child extends Base {
  hello(): string {
    return this.name;
  }
}

new Child("c").hello();
