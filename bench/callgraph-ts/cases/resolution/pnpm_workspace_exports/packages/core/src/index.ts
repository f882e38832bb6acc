export { slugify } from "./slug";
