// The same kind of plugin in plain JavaScript: no build, no decorators. The tracer gets what it
// needs from the TracerContext handed to start(); inversify only holds the instance.
import { ContainerModule } from 'inversify';

class Forks {
  name = 'forks';
  description = 'count sys_fork calls per task (plain JavaScript, no build)';
  counts = new Map();

  start(ctx) {
    this.kprobes = ctx.kprobes;
    this.kp = {
      symbolName: 'sys_fork',
      preHandler: (_p, regs) => {
        const comm = ctx.tasks.current(ctx.regs.smpProcessorId(regs))?.comm ?? '<idle>';
        this.counts.set(comm, (this.counts.get(comm) ?? 0) + 1);
        return 0;
      },
    };
    ctx.kprobes.registerKprobe(this.kp);
  }

  stop() {
    if (this.kp) this.kprobes.unregisterKprobe(this.kp);
    this.kp = undefined;
  }

  report() {
    const lines = [...this.counts].map(([comm, n]) => `${comm} forked ${n} times`);
    return { format: 'text', text: `${lines.join('\n')}\n` };
  }
}

export const manifest = { name: 'int3-plugin-template-plain', version: '0.1.0', apiVersion: 2, provides: ['forks'] };
export const module = new ContainerModule(({ bind }) => {
  bind('forks').toConstantValue(new Forks());
});
