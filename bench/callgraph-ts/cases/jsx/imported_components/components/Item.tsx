export function Item(props: { name: string; onPick: (n: string) => void }) {
  props.onPick(props.name);
  return <li>{props.name}</li>;
}
