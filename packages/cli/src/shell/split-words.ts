/** One word of a shell line; `quoted` when any part of it was quoted (so `'>'` is not a redirection). */
export interface ShellWord {
  readonly text: string;
  readonly quoted: boolean;
}

/** A line whose quoting is unbalanced. */
export class ShellSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShellSyntaxError';
  }
}

const DOUBLE_QUOTE_ESCAPES = new Set(['\\', '"', '$', '`']);

/**
 * Splits a line into words as `sh` does for simple commands: blanks separate words, single quotes are
 * literal, double quotes keep blanks and honour `\` before `\ " $` and backquote, a bare `\` escapes
 * the next character, and an unquoted `#` at the start of a word starts a comment. `>` and `>>` are
 * words of their own unless quoted.
 *
 * @see POSIX.1-2017 XCU 2.2 Quoting, 2.3 Token Recognition
 * @example
 * splitWords(`echo 'p:a do_sys_open' >> kprobe_events`).map((w) => w.text); // ['echo', 'p:a do_sys_open', '>>', 'kprobe_events']
 */
export function splitWords(line: string): ShellWord[] {
  const words: ShellWord[] = [];
  let text = '';
  let quoted = false;
  let inWord = false;
  const finish = () => {
    if (inWord) words.push({ text, quoted });
    text = '';
    quoted = false;
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      finish();
    } else if (c === '#' && !inWord) {
      break;
    } else if (c === '>') {
      finish();
      const op = line[i + 1] === '>' ? '>>' : '>';
      i += op.length - 1;
      words.push({ text: op, quoted: false });
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new ShellSyntaxError('unterminated quoted string');
      text += line.slice(i + 1, end);
      i = end;
      quoted = inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && DOUBLE_QUOTE_ESCAPES.has(line[j + 1])) j++;
        text += line[j];
      }
      if (j >= line.length) throw new ShellSyntaxError('unterminated quoted string');
      i = j;
      quoted = inWord = true;
    } else if (c === '\\') {
      if (i + 1 < line.length) text += line[++i];
      quoted = inWord = true;
    } else {
      text += c;
      inWord = true;
    }
  }
  finish();
  return words;
}
