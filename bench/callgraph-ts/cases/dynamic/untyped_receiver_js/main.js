class Car {
  move() {
    return "drive";
  }
}

class Bike {
  move() {
    return "ride";
  }
}

class Boat {
  move() {
    return "sail";
  }
}

function go(v) {
  return v.move(); // unresolvable: untyped receiver
}

go(new Car());
go(new Bike());
new Boat();
