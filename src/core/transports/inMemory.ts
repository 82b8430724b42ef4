import type { Transport, TransportCloseInfo } from './transport';
import { fromJson, stringify } from '../util/json';

/**
 * Two transports wired to each other in the same process, for tests: what one sends, the other
 * receives on the next microtask (so ordering is as on a real wire, and no re-entrancy).
 */
export class InMemoryTransport implements Transport {
  #peer?: InMemoryTransport;
  #closed = false;
  readonly description = 'in-memory';
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (info: TransportCloseInfo) => void;

  static createLinkedPair(): [InMemoryTransport, InMemoryTransport] {
    const a = new InMemoryTransport();
    const b = new InMemoryTransport();
    a.#peer = b;
    b.#peer = a;
    return [a, b];
  }

  async start(): Promise<void> {
    if (this.#closed) throw new Error('in-memory transport is closed');
  }

  async send(message: object): Promise<void> {
    if (this.#closed || !this.#peer) throw new Error('in-memory transport is closed');
    // A JSON round trip, so neither side shares objects with the other.
    const copy: unknown = fromJson(stringify(message));
    const peer = this.#peer;
    queueMicrotask(() => peer.onmessage?.(copy));
  }

  /** Delivers any value to the peer as if it came off the wire (tests of malformed input). */
  injectToPeer(value: unknown): void {
    const peer = this.#peer;
    queueMicrotask(() => peer?.onmessage?.(value));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const peer = this.#peer;
    this.onclose?.({ reason: 'closed' });
    if (peer && !peer.#closed) await peer.#closeFromPeer();
  }

  async #closeFromPeer(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.({ reason: 'the other side closed' });
  }
}
