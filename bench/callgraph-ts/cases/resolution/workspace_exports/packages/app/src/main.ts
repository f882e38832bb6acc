import { render } from "@acme/core";

render("<b>");
