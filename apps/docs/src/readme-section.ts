/** The part of markdown-it this plugin uses: the core rules, run before the block parser. */
export interface CoreHost {
  readonly core: {
    readonly ruler: {
      before: (name: string, rule: string, fn: (state: { src: string }) => void) => void;
    };
  };
}

/**
 * The body of the level-2 section `## TITLE` of a markdown file: everything after its heading up to
 * the next level-2 heading (or the end). Headings inside fenced code do not count.
 *
 * @example
 * readmeSection('# x\n## Performance\nfast\n## Next\n', 'Performance'); // 'fast\n'
 */
export function readmeSection(markdown: string, title: string): string {
  const lines = markdown.split('\n');
  let fenced = false;
  let start = -1;
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    if (/^(```|~~~)/.test(lines[i])) fenced = !fenced;
    if (fenced || !lines[i].startsWith('## ')) continue;
    if (start >= 0) {
      end = i;
      break;
    }
    if (lines[i].slice(3).trim() === title) start = i + 1;
  }
  if (start < 0) throw new Error(`readme section: no '## ${title}' heading`);
  return `${lines.slice(start, end).join('\n').trim()}\n`;
}

/**
 * A markdown-it plugin: `<!--@readme: TITLE-->` on a line of its own is replaced by the README's
 * section TITLE ({@link readmeSection}), so a page repeats the README's figures without a copy.
 */
export function readmeSections(md: CoreHost, readReadme: () => string): void {
  md.core.ruler.before('normalize', 'int3-readme-section', (state) => {
    state.src = state.src.replace(/^<!--@readme: (.+?)-->$/gm, (_m, title: string) =>
      readmeSection(readReadme(), title.trim()),
    );
  });
}
