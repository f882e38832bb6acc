export namespace Fmt {
  export function money(n: number): string {
    return "$" + fixed(n);
  }

  function fixed(n: number): string {
    return n.toFixed(2);
  }
}
