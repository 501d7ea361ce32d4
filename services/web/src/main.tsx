import { render } from "preact";
import { App } from "./app.tsx";
import { keepFocusThroughBusy } from "./focus_keeper.ts";

keepFocusThroughBusy();
render(<App />, document.getElementById("app")!);
