import svc from "./lib/service";

function showHome(): string {
  return "home";
}

function showAbout(): string {
  return "about";
}

class Router {
  private routes = { home: showHome, about: showAbout };

  go(): string {
    return this.routes.home() + this.routes["about"]();
  }
}

function boot(): void {
  svc.start();
  new Router().go();
  svc.stop();
}

boot();
