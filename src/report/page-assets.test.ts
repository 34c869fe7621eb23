import { describe, expect, it } from 'vitest';
import { inlineCall, type PageStyle, pageStyle } from './page-assets.js';

describe('page assets', () => {
  it('reads every style sheet a page inlines', () => {
    const names: PageStyle[] = ['report', 'measurement', 'uplot-fonts', 'shrink', 'campaign-summary'];
    for (const name of names) {
      const css = pageStyle(name);
      expect(css.length, name).toBeGreaterThan(50);
      expect(css).not.toMatch(/<\/style/i);
    }
    expect(pageStyle('report')).toContain('#timeline');
  });

  it('inlines a function as a call, with the JSON of a page element when given one', () => {
    function greet(data: { who: string }): void {
      console.log(data.who);
    }
    const call = inlineCall(greet, 'page-data');
    expect(call).toMatch(
      /^'use strict';\n\(function greet\(data\) \{[\s\S]*\}\)\(JSON\.parse\(document\.getElementById\("page-data"\)\.textContent\)\);$/,
    );
    expect(() => new Function(call)).not.toThrow();
    expect(inlineCall(() => {})).toMatch(/^'use strict';\n\(.*\)\(\);$/);
  });

  it('refuses a function that would close its <script>', () => {
    // Built from text: a compiler may escape the slash of a literal '</script>'.
    const closes = new Function("return '</script>';") as () => void;
    expect(() => inlineCall(closes)).toThrow(/closing tag/);
  });
});
