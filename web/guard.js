// memplan's pages (the app, compare, the lessons) run only at the top of
// a tab or inside a page of their own site: a page of another site that
// framed one could drive it and read what it shows. The viewer
// (viewer.html) is the page made to be embedded, and its messages are
// checked (docs/embedding.md, "Origins"). The host's frame-ancestors
// header says the same to browsers that honour it; this says it where the
// host sends none.
"use strict";
(() => {
  let foreign = false;
  try {
    foreign = window.top !== window && window.top.location.origin !== location.origin;
  } catch (_) {
    foreign = true; // reading another origin's location throws
  }
  if (!foreign) return;
  // The page's own scripts see this and do not start.
  window.memplanFramed = true;
  const p = document.createElement("p");
  p.style.cssText = "font: 15px/1.5 system-ui, sans-serif; margin: 24px";
  const a = document.createElement("a");
  a.href = location.href;
  a.target = "_blank";
  a.rel = "noopener";
  a.textContent = "Open memplan in its own tab";
  p.append("This page of memplan does not run inside another site's page. ", a, ".");
  const body = document.createElement("body");
  body.append(p);
  document.documentElement.replaceChildren(body);
})();
