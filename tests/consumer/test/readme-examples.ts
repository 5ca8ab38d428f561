/** One fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The info string's first word (`ts`, `text`, `console`, …), or '' for a bare fence. */
  readonly lang: string;
  readonly code: string;
}

/** A program a README shows, with the output the README says it prints (undefined when it says none). */
export interface ReadmeProgram {
  readonly code: string;
  readonly expected: string | undefined;
}

/** A shell command a README shows after `$ `, with the output lines shown under it. */
export interface ReadmeCommand {
  readonly command: string;
  readonly expected: string;
}

/** Every fenced (```) code block of `markdown`, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { lang: string; lines: string[] } | undefined;
  for (const line of markdown.split('\n')) {
    if (open === undefined) {
      const fence = /^```(\S*)/.exec(line);
      if (fence) open = { lang: fence[1], lines: [] };
    } else if (/^```\s*$/.test(line)) {
      blocks.push({ lang: open.lang, code: open.lines.map((l) => `${l}\n`).join('') });
      open = undefined;
    } else {
      open.lines.push(line);
    }
  }
  if (open !== undefined) throw new Error(`unclosed \`\`\`${open.lang} block`);
  return blocks;
}

/**
 * The README's programs: every `ts` block, with the `text` block right after it (if any) as the
 * output it prints.
 */
export function readmePrograms(markdown: string): ReadmeProgram[] {
  const blocks = codeBlocks(markdown);
  return blocks.flatMap((b, i) =>
    b.lang === 'ts'
      ? [{ code: b.code, expected: blocks[i + 1]?.lang === 'text' ? blocks[i + 1].code : undefined }]
      : [],
  );
}

/** The README's shell commands: each `$ ` line of its `console` blocks, with the lines up to the next one. */
export function readmeCommands(markdown: string): ReadmeCommand[] {
  const commands: { command: string; lines: string[] }[] = [];
  for (const block of codeBlocks(markdown).filter((b) => b.lang === 'console')) {
    for (const line of block.code.split('\n').slice(0, -1)) {
      if (line.startsWith('$ ')) commands.push({ command: line.slice(2), lines: [] });
      else if (commands.length > 0) commands[commands.length - 1].lines.push(line);
      else throw new Error(`console block starts with output, not a $ command: ${line}`);
    }
  }
  return commands.map((c) => ({ command: c.command, expected: c.lines.map((l) => `${l}\n`).join('') }));
}

/**
 * The TypeScript version the README states its types need (`TypeScript ≥ 5.8`), or undefined.
 */
export function statedTypeScriptVersion(markdown: string): string | undefined {
  return /TypeScript ≥ (\d+\.\d+)/.exec(markdown)?.[1];
}

/** Text with each line's trailing blanks removed (READMEs do not keep them; tables print them). */
export function trimLineEnds(text: string): string {
  return text.replace(/[ \t]+$/gm, '');
}
