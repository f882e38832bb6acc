function title(s: string): string {
  return s.toUpperCase();
}

function Header(props: { text: string }) {
  return <h1>{title(props.text)}</h1>;
}

function Footer() {
  return <footer>bye</footer>;
}

export function App() {
  return (
    <div>
      <Header text="hi" />
      <Footer />
    </div>
  );
}
