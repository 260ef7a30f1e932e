/* A display equation wider than the column (on a phone) is set just small enough to fit, and
   no smaller than 75%; the others keep MathJax's size. Past 75% it scrolls inside its own box
   (semres.css), never the page. */
window.addEventListener("load", () => {
  const fit = () => {
    for (const eq of document.querySelectorAll('mjx-container[display="true"]')) {
      eq.style.fontSize = "";
      const room = eq.clientWidth, need = eq.scrollWidth;
      if (need > room + 1) eq.style.fontSize = `${Math.max(75, Math.floor(100 * room / need))}%`;
    }
  };
  if (window.MathJax && MathJax.startup) MathJax.startup.promise.then(fit);
  window.addEventListener("resize", fit);
});
