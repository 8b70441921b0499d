// The static edition's page script: the widgets rendered from the page's saved state (the
// vendored @jupyter-widgets/html-manager), formulas ($…$) with the vendored KaTeX, and the
// contents bar closed on a narrow screen. Nothing is fetched from anywhere but the site itself.
(function () {
  "use strict";
  function mathInMarkdown() {
    // one markdown cell per idle moment: the widgets' first render goes first
    if (!window.renderMathInElement) { return; }
    var cells = Array.prototype.slice.call(document.querySelectorAll(".jp-MarkdownOutput"));
    var later = window.requestIdleCallback || function (f) { return window.setTimeout(f, 1); };
    function next() {
      var el = cells.shift();
      if (!el) { return; }
      typeset(el);
      later(next, { timeout: 200 });
    }
    later(next, { timeout: 200 });
  }
  function typeset(el) {
    window.renderMathInElement(el, {
      delimiters: [
        { left: "$$", right: "$$", display: true },
        { left: "\\[", right: "\\]", display: true },
        { left: "$", right: "$", display: false },
        { left: "\\(", right: "\\)", display: false }
      ],
      throwOnError: false
    });
  }
  function contents() {
    var nav = document.querySelector(".posenc-nav-toggle");
    if (nav && window.matchMedia("(max-width: 900px)").matches) { nav.open = false; }
  }
  function widgets() {
    // the widget state the page was saved with: every view rendered with no kernel
    if (!window.require || !document.querySelector('script[type="application/vnd.jupyter.widget-state+json"]')) { return; }
    window.require(["@jupyter-widgets/html-manager/dist/libembed-amd"], function (embed) { embed.renderWidgets(); });
  }
  function ready() {
    contents();
    widgets();
    mathInMarkdown();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
}());
