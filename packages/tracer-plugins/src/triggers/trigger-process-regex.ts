import { TraceFsError } from '../tracefs/trace-fs-error.js';
import { TRIGGER_COMMANDS } from './trigger-commands.js';
import type { TriggerList } from './trigger-context.js';

/**
 * Runs one trimmed `trigger` write: the command is the text up to the first `:`, space or tab (a
 * leading `!` asks for removal), the rest (spaces skipped, undefined when empty) its parameter. An
 * unknown command is EINVAL.
 *
 * @see kernel/trace/trace_events_trigger.c trigger_process_regex()
 */
export function triggerProcessRegex(triggers: TriggerList, buff: string): void {
  const text = buff.replace(/^\s+/, '');
  const m = /[: \t]/.exec(text);
  const glob = m === null ? text : text.slice(0, m.index);
  let next: string | undefined = m === null ? undefined : text.slice(m.index + 1).replace(/^\s+/, '');
  if (next === '') next = undefined;
  const cmd = glob.startsWith('!') ? glob.slice(1) : glob;
  const command = TRIGGER_COMMANDS.find((c) => c.name === cmd);
  if (command === undefined) throw new TraceFsError('EINVAL', `trigger: unknown command '${cmd}'`);
  command.parse(triggers, glob, next);
}
