import { B } from "./b";

class C extends B {
  render(): string {
    return super.render() + this.extra();
  }
}

new C().render();
