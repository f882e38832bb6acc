export default function Layout(props: { children?: unknown }) {
  return <main>{props.children}</main>;
}
