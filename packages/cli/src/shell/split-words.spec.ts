import { describe, expect, it } from 'vitest';
import { ShellSyntaxError, splitWords } from './split-words.js';

const texts = (line: string) => splitWords(line).map((w) => w.text);

describe(splitWords, () => {
  it('should split on blanks and keep single quotes literal', () => {
    expect(texts(`echo 'p:myprobe do_sys_open dfd=%di' > kprobe_events`)).toEqual([
      'echo',
      'p:myprobe do_sys_open dfd=%di',
      '>',
      'kprobe_events',
    ]);
  });

  it('should honour backslash escapes inside double quotes only before \\ " $ and backquote', () => {
    expect(texts(String.raw`echo "a \"b\" \n $x"`)).toEqual(['echo', String.raw`a "b" \n $x`]);
  });

  it('should make >> and > words of their own, even without blanks', () => {
    expect(texts('echo 1>>enable')).toEqual(['echo', '1', '>>', 'enable']);
    expect(splitWords("echo '>' x")[1]).toEqual({ text: '>', quoted: true });
  });

  it('should drop a comment and keep a # inside a word', () => {
    expect(texts('cat trace # the buffer')).toEqual(['cat', 'trace']);
    expect(texts('echo a#b')).toEqual(['echo', 'a#b']);
  });

  it('should keep an empty quoted word', () => {
    expect(splitWords("echo ''")).toEqual([
      { text: 'echo', quoted: false },
      { text: '', quoted: true },
    ]);
  });

  it('should refuse an unterminated quote', () => {
    expect(() => splitWords("echo 'p:a")).toThrow(ShellSyntaxError);
    expect(() => splitWords('echo "p:a')).toThrow(ShellSyntaxError);
  });
});
