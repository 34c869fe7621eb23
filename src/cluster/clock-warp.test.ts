import { describe, expect, it } from 'vitest';
import { changeArgs, parseWarpState } from './clock-warp.js';

const attached =
  '{"pid":6645,"action":"attach","warped":true,"page":"0x7f50c2b19000","offsetMs":{"realtime":30000.000000,"monotonic":30000.000000,"boottime":30000.000000},"rate":0,"sites":[{"symbol":"clock_gettime","addr":"0x7f50d2b19b10","original":"554889e541"}]}';

describe('the helper answer', () => {
  it('reads the warp in place and the patched sites', () => {
    const state = parseWarpState(attached);
    expect(state).toMatchObject({ pid: 6645, action: 'attach', warped: true, rate: 0 });
    expect(state.offsetMs?.realtime).toBe(30000);
    expect(state.sites).toEqual([{ symbol: 'clock_gettime', addr: '0x7f50d2b19b10', original: '554889e541' }]);
  });

  it('reads the true monotonic time its offsets are for, where it says it', () => {
    const at = attached.replace('"rate":0,', '"rate":0,"atMonotonicNs":123456789012,');
    expect(parseWarpState(at).atMonotonicNs).toBe(123456789012);
    expect(parseWarpState(attached).atMonotonicNs).toBeUndefined();
    for (const bad of ['"x"', '-1', 'null', '1e999']) {
      expect(() => parseWarpState(attached.replace('"rate":0,', `"rate":0,"atMonotonicNs":${bad},`))).toThrow(
        /malformed atMonotonicNs|no JSON/,
      );
    }
  });

  it('reads a process that is not warped, with no offsets', () => {
    expect(parseWarpState('{"pid":3,"action":"read","warped":false}')).toEqual({
      pid: 3,
      action: 'read',
      warped: false,
    });
  });

  it('refuses what is not its answer, saying what is wrong', () => {
    expect(() => parseWarpState('clock-warp: oops')).toThrow(/no JSON/);
    expect(() => parseWarpState('[1]')).toThrow(/no object/);
    expect(() => parseWarpState('{"pid":-1,"action":"read","warped":false}')).toThrow(/no pid/);
    expect(() => parseWarpState('{"pid":1,"action":"explode","warped":false}')).toThrow(/unknown action/);
    expect(() => parseWarpState('{"pid":1,"action":"set","warped":true,"rate":0}')).toThrow(/no offsets/);
    expect(() => parseWarpState(attached.replace('"rate":0', '"rate":"fast"'))).toThrow(/no rate/);
    expect(() => parseWarpState(attached.replace('"symbol":"clock_gettime",', ''))).toThrow(/malformed site/);
  });
});

describe('a clock change', () => {
  it('becomes the helper flags it names', () => {
    expect(changeArgs({ offsetMs: 30000 })).toEqual(['--offset-ms', '30000']);
    expect(changeArgs({ jumpMs: -5000, rate: 0.05 })).toEqual(['--jump-ms', '-5000', '--rate', '0.05']);
    expect(changeArgs({})).toEqual([]);
  });

  it('refuses a value that is not a finite number', () => {
    expect(() => changeArgs({ rate: Number.NaN })).toThrow(/--rate must be a finite number/);
  });
});
