/**
 * Following the window's size: the timeline's sticky head sits under the page's sticky
 * header, whose height follows the headline's length and the window's width; the timeline
 * and the latency plot are drawn again at the new width, once resizing pauses for 100 ms.
 */
import type { Page } from './page-view.js';

function setHeaderHeight(): void {
  const header = document.querySelector('header');
  if (header)
    document.documentElement.style.setProperty('--header-height', `${header.getBoundingClientRect().height}px`);
}

export function followWindowSize(page: Page): void {
  setHeaderHeight();
  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      setHeaderHeight();
      page.render();
      if (page.plot) {
        page.plot.setSize({ width: Math.max(document.getElementById('latency')!.clientWidth, 480), height: 300 });
      }
    }, 100);
  });
}
