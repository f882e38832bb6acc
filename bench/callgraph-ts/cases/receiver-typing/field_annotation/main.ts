class Repo {
  find(id: number): string {
    return "row" + id;
  }
}

class Users {
  private repo: Repo;

  constructor(repo: Repo) {
    this.repo = repo;
  }

  get(id: number): string {
    return this.repo.find(id);
  }
}

const users = new Users(new Repo());
users.get(1);
