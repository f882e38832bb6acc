abstract class Exporter {
  export(): string {
    return this.header() + this.body();
  }

  header(): string {
    return "#";
  }

  abstract body(): string;
}

class CsvExporter extends Exporter {
  body(): string {
    return "a,b";
  }
}

class JsonExporter extends Exporter {
  body(): string {
    return "{}";
  }

  header(): string {
    return "";
  }
}

new CsvExporter().export();
new JsonExporter().export();
