// Where the live views draw: ink on the process's terminal, as wide as the terminal says, or 80
// columns when it says 0 or nothing (`stty cols 0`, a serial console): ink would otherwise lay
// out at width 0, one character to a line, as fast as it redraws.
import type { ReactElement } from 'react';
import { render, type Instance } from 'ink';

/** A terminal narrower than this is taken as not knowing its width. */
const FALLBACK_COLUMNS = 80;

/** stdout as ink sees it: its own stream, but for a width that is never 0. */
export function screenOf(out: NodeJS.WriteStream): NodeJS.WriteStream {
  return new Proxy(out, {
    get(target, prop) {
      if (prop === 'columns') return target.columns || FALLBACK_COLUMNS;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

export function renderLive(node: ReactElement): Instance {
  return render(node, { exitOnCtrlC: true, stdout: screenOf(process.stdout) });
}
