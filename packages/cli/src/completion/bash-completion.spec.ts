import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKLOADS } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../program.js';
import { tempDir } from '../temp-dir.fixture.js';
import { TRACE_FORMATS } from '../tracing/trace-plan.js';
import { bashCompletion } from './bash-completion.js';
import { commandTree } from './command-tree.js';

const script = bashCompletion(commandTree(createProgram(), { '--run': WORKLOADS, '--format': TRACE_FORMATS }));
const dir = tempDir('int3-bash-completion-');
const file = join(dir, 'int3.bash');
writeFileSync(file, script);
writeFileSync(join(dir, 'run.int3log'), '');

/**
 * What bash's programmable completion offers for the command line `line` (the cursor at its end),
 * run through `complete -p int3`'s function exactly as readline would call it.
 */
function complete(line: string): string[] {
  const program = [
    `source ${JSON.stringify(file)}`,
    'read -r -a COMP_WORDS <<< "$LINE"',
    '[[ "$LINE" == *" " ]] && COMP_WORDS+=("")',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…} expansions, not a template
    'COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…} expansions, not a template
    'COMP_LINE="$LINE"; COMP_POINT=${#LINE}',
    'fn=$(complete -p int3 | sed -E "s/.*-F ([^ ]+) .*/\\1/")',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…} expansions, not a template
    '"$fn" int3 "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…} expansions, not a template
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', program], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, LINE: line },
  });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe(bashCompletion, () => {
  it('should be valid bash that registers a completion function for int3', () => {
    const r = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(complete('int3 ').sort()).toEqual(
      createProgram()
        .commands.map((c) => c.name())
        .sort(),
    );
  });

  it('should complete commands, then their options with the global ones', () => {
    expect(complete('int3 tr').sort()).toEqual(['trace', 'tracefs', 'tracers']);
    expect(complete('int3 trace --fo')).toEqual(['--format']);
    expect(complete('int3 --plugin ./p syms --j')).toEqual(['--json']);
    expect(complete('int3 syms --col')).toEqual(['--color']);
    expect(complete('int3 --q')).toEqual(['--quiet']);
  });

  it("should complete option values: --color's choices, --format, --run's workloads, files for -o and a log", () => {
    expect(complete('int3 --color a')).toEqual(['auto', 'always']);
    expect(complete('int3 trace --format ')).toEqual([...TRACE_FORMATS]);
    expect(complete('int3 trace --run c')).toEqual(['cat']);
    expect(complete('int3 record -o ru')).toEqual(['run.int3log']);
    expect(complete('int3 replay ru')).toEqual(['run.int3log']);
    expect(complete('int3 completion ')).toEqual(['bash', 'zsh', 'fish']);
    expect(complete('int3 trace -e ')).toEqual([]);
  });
});
