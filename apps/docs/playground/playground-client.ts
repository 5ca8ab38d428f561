import type { PlaygroundReply, PlaygroundRequest } from './protocol.js';

/** The distributive Omit: a request without its id. */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/** The page's side of the worker: one promise per request, answered in order. */
export class PlaygroundClient {
  private next = 1;
  private readonly pending = new Map<number, (reply: PlaygroundReply) => void>();

  constructor(private readonly worker: Worker) {
    worker.onmessage = (event: MessageEvent<PlaygroundReply>) => {
      const resolve = this.pending.get(event.data.id);
      this.pending.delete(event.data.id);
      resolve?.(event.data);
    };
  }

  /** Sends a request and waits for its reply. */
  request(request: WithoutId<PlaygroundRequest>): Promise<PlaygroundReply> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ ...request, id });
    });
  }

  terminate(): void {
    this.worker.terminate();
  }
}

/** What {@link PlaygroundClient.request} needs: a test passes a fake. */
export type PlaygroundRequester = Pick<PlaygroundClient, 'request'>;
