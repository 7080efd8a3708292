// A React component file exercising the definitions the extractor knows.
import React, { useState } from "react";  // @ref import react @ref name useState

export interface CounterProps { // @def interface CounterProps
  initial?: number; // @def property CounterProps.initial
  label: string; // @def property CounterProps.label
  onChange?(value: number): void; // @decl method CounterProps.onChange
}

type Theme = "light" | "dark"; // @def type Theme

const STEP = 1; // @def constant STEP

export function Counter({ initial = 0, label }: CounterProps) { // @def function Counter
  const [count, setCount] = useState(initial);  // @ref call useState in Counter
  const increment = () => setCount(count + STEP);
  return (
    <button className="counter" onClick={increment}>
      {label}: {count}
    </button>
  );
}

export const Badge = ({ text }: { text: string }) => <span className="badge">{text}</span>; // @def function Badge

export default class Panel extends React.Component<{ theme: Theme }> { // @def class Panel
  state = { open: false }; // @def property Panel.state

  toggle = () => this.setState({ open: !this.state.open }); // @def method Panel.toggle

  render() { // @def method Panel.render
    return <div className={this.props.theme}>{this.state.open && <Counter label="n" />}</div>;
  }
}

enum Size { Small, Large } // @def enum Size @def enum_member Size.Small @def enum_member Size.Large
