// Rate Limit Lab's embed helper, for the page that frames the lab (documentation, a blog):
//
//   <iframe data-ratelab src="https://example.org/ratelab/?embed=1" ...></iframe>
//   <script src="https://example.org/ratelab/embed.js" defer></script>
//
// - Sizes every <iframe data-ratelab> to the height the lab reports. The lab posts the string
//   "ratelab:height:<CSS pixels>" whenever its height changes; messages of any other shape, or
//   from any other window, are ignored.
// - Sends each frame the page's theme, "ratelab:theme:light", "ratelab:theme:dark" or
//   "ratelab:theme:auto": the value of data-ratelab-theme on the frame or on <html> when set, otherwise the
//   theme of an mdBook book (its class on <html>: light and rust are light, coal, navy and ayu
//   are dark), otherwise nothing (the lab follows its link's theme= and the system).
//   RateLabEmbed.setTheme(theme) sets it for every frame from a page's own theme switch.
//
// Without this script an embed still works at the height its snippet gives the frame.
(() => {
  const HEIGHT = /^ratelab:height:(\d{1,5})$/;
  const THEME = 'ratelab:theme:';
  const THEMES = ['light', 'dark', 'auto'];
  const MDBOOK_DARK = ['coal', 'navy', 'ayu'];
  const MDBOOK_LIGHT = ['light', 'rust'];
  let chosen = null;

  const frames = () => Array.from(document.querySelectorAll('iframe[data-ratelab]'));

  const pageTheme = (frame) => {
    const own = frame.dataset.ratelabTheme || document.documentElement.dataset.ratelabTheme;
    if (THEMES.includes(own)) return own;
    if (chosen) return chosen;
    const classes = document.documentElement.classList;
    if (MDBOOK_DARK.some((c) => classes.contains(c))) return 'dark';
    if (MDBOOK_LIGHT.some((c) => classes.contains(c))) return 'light';
    return null;
  };

  const sendTheme = (frame) => {
    const theme = pageTheme(frame);
    if (theme && frame.contentWindow) {
      frame.contentWindow.postMessage(THEME + theme, '*');
    }
  };

  addEventListener('message', (event) => {
    const match = typeof event.data === 'string' && HEIGHT.exec(event.data);
    if (!match) return;
    const height = Number(match[1]);
    if (height < 50 || height > 20000) return;
    const frame = frames().find((f) => f.contentWindow === event.source);
    if (!frame) return;
    const first = !frame.dataset.ratelabSized;
    frame.style.height = `${height}px`;
    frame.dataset.ratelabSized = 'true';
    // The first height says the lab is running and listening: the moment to tell it the theme.
    if (first) sendTheme(frame);
  });

  // A book's theme switch changes <html>'s class or data-ratelab-theme: follow it.
  new MutationObserver(() => frames().forEach(sendTheme)).observe(document.documentElement, {
    attributes: true,
    attributeFilter: ['class', 'data-ratelab-theme'],
  });

  window.RateLabEmbed = {
    setTheme(theme) {
      if (!THEMES.includes(theme)) return;
      chosen = theme;
      frames().forEach(sendTheme);
    },
  };
})();
