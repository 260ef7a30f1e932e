/* Display math at the size of the inline math beside it: MathJax scales inline math to the
   text's x-height (about 127% with this theme's font) but leaves display math at 100%, so the
   displays read smaller than the sentences around them. A display wider than the column (on a
   phone) is set just small enough to fit, and never below the body text's size; past that it
   scrolls inside its own box (semres.css), never the page. */
window.addEventListener("load", () => {
  const base = () => {
    const inline = document.querySelector('mjx-container:not([display="true"])');
    if (!inline) return 100;
    const own = parseFloat(getComputedStyle(inline).fontSize);
    const text = parseFloat(getComputedStyle(inline.parentElement).fontSize);
    return Math.max(100, Math.round(100 * own / text));
  };
  const fit = () => {
    const scale = base();
    for (const eq of document.querySelectorAll('mjx-container[display="true"]')) {
      eq.style.fontSize = `${scale}%`;
      const room = eq.clientWidth, need = eq.scrollWidth;
      if (need > room + 1) eq.style.fontSize = `${Math.max(100, Math.floor(scale * room / need))}%`;
    }
  };
  if (window.MathJax && MathJax.startup) MathJax.startup.promise.then(fit);
  window.addEventListener("resize", fit);
});

/* A table wider than its column is marked "is-wide", which shows the line above it that says
   it scrolls sideways (semres.css). */
window.addEventListener("load", () => {
  const mark = () => {
    for (const box of document.querySelectorAll(
        ".semres-table-scroll, .pst-scrollable-table-container")) {
      box.classList.toggle("is-wide", box.scrollWidth > box.clientWidth + 1);
    }
  };
  mark();
  window.addEventListener("resize", mark);
});
