import * as UI from "./ui";

class Toolbar {
  props: { count: number };

  constructor(props: { count: number }) {
    this.props = props;
  }

  render() {
    return (
      <nav>
        <UI.Button label={String(this.props.count)} />
        <UI.Icon />
      </nav>
    );
  }
}

export function Shell() {
  return <Toolbar count={2} />;
}
