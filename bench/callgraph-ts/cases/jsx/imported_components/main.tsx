import Layout from "./components/Layout";
import { Item } from "./components/Item";

function save(name: string): void {}

export function Page() {
  return (
    <Layout>
      <Item name="a" onPick={save} />
    </Layout>
  );
}
