class Query {
  private parts: string[] = [];

  where(p: string): Query {
    this.parts.push(p);
    return this;
  }

  build(): string {
    return this.parts.join(" and ");
  }
}

function query(): Query {
  return new Query();
}

query().where("a").where("b").build();
