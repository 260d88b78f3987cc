// A message for the user, on stderr: the one way the command line writes
// one, so that no byte of a test, a file's name or a model's text reaches
// the terminal raw (src/parse/errors.ts printable).

import { printable } from '../parse/errors.js';

/** Writes `text` as a line on stderr, its control characters as escapes. */
export function say(text: string): void {
  console.error(printable(text));
}
