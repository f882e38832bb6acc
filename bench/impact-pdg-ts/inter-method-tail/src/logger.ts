export class Logger {
  lines: string[] = [];
  write(s: string): void {
    this.lines.push(s);
  }
  flush(): number {
    const n = this.lines.length;
    this.lines = [];
    return n;
  }
  close(tag: string): number {
    this.write(tag);
    return this.flush();
  }
}
