import { Repo } from "./lib/base";

class UserRepo extends Repo {
  constructor() {
    super("users");
  }

  findUser(id: number): string {
    return super.find(id);
  }
}

const r = new UserRepo();
r.findUser(1);
r.find(2);
