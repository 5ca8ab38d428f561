/// <reference lib="webworker" />
import { Buffer } from 'buffer';
import wasmUrl from 'iced-x86/iced_x86_bg.wasm?url';
import type { PlaygroundReply, PlaygroundRequest } from './protocol.js';

// The int3 packages run on Node's globals Buffer and setImmediate; the worker gives them the
// browser's equivalents before the packages load (static imports would run first, hence import()).
const scope = globalThis as unknown as Record<string, unknown>;
scope.Buffer = Buffer;
if (typeof scope.setImmediate !== 'function') {
  const channel = new MessageChannel();
  const queue: (() => void)[] = [];
  channel.port1.onmessage = () => queue.shift()?.();
  scope.setImmediate = (fn: () => void) => {
    queue.push(fn);
    channel.port2.postMessage(0);
  };
}

const ready = (async () => {
  const response = await fetch(new URL(wasmUrl, self.location.href));
  if (!response.ok) throw new Error(`cannot load iced-x86's wasm: HTTP ${response.status}`);
  scope.__INT3_ICED_WASM__ = new Uint8Array(await response.arrayBuffer());
  const { PlaygroundEngine } = await import('./engine.js');
  return new PlaygroundEngine();
})();

// Requests are handled one at a time, in order.
let queue: Promise<void> = Promise.resolve();
self.onmessage = (event: MessageEvent<PlaygroundRequest>) => {
  const request = event.data;
  queue = queue.then(async () => {
    let reply: PlaygroundReply;
    try {
      reply = await (await ready).handle(request);
    } catch (error) {
      reply = { type: 'error', id: request.id, message: `int3: ${(error as Error).message}` };
    }
    self.postMessage(reply);
  });
};
