import { circleArea, squareArea, describe } from "./shapes";

circleArea(1);
squareArea(2);
describe();
