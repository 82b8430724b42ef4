import * as z from 'zod/mini';
import type { Event } from '../util/event';
import { DisposableBase, Emitter } from '../util/event';
import { entriesOf, fromEntries } from '../util/builtins';
import { OptionalString } from '../util/zod';

/** Whether a server's sampling requests need the user's answer each time. */
export type SamplingPermission = 'ask' | 'always';

const GrantSchema = z.object({ label: z.string(), fingerprint: OptionalString });
const PersistedSchema = z.object({ version: z.literal(1), always: z.record(z.string(), GrantSchema) });

/** The stored form (the editor keeps it in `globalState`). */
export type PersistedSamplingPermissions = z.infer<typeof PersistedSchema>;

/** A server the user always allows, as the revoke command lists it. */
export interface AllowedServer {
  serverId: string;
  label: string;
}

/**
 * Which servers may sample without asking. Every server starts at `ask`; the user may answer
 * "Always allow" once, and revoke it later. A grant is bound to the server's configuration
 * fingerprint when one is given: a server whose command or URL changed asks again.
 */
export class SamplingPermissions extends DisposableBase {
  readonly #always = new Map<string, { label: string; fingerprint?: string }>();
  readonly #onDidChange = this._register(new Emitter<void>());
  /** A grant was added or revoked (persist now). */
  readonly onDidChange: Event<void> = this.#onDidChange.event;

  /** Reads a stored value; anything unreadable gives an empty set (everyone is asked again). */
  static fromJSON(value: unknown): SamplingPermissions {
    const perms = new SamplingPermissions();
    const parsed = PersistedSchema.safeParse(value);
    if (parsed.success) for (const [id, grant] of entriesOf(parsed.data.always)) perms.#always.set(id, grant);
    return perms;
  }

  get(serverId: string, fingerprint?: string): SamplingPermission {
    const grant = this.#always.get(serverId);
    return grant && grant.fingerprint === fingerprint ? 'always' : 'ask';
  }

  allowAlways(serverId: string, label: string, fingerprint?: string): void {
    this.#always.set(serverId, fingerprint === undefined ? { label } : { label, fingerprint });
    this.#onDidChange.fire();
  }

  /** True when the server had a grant. */
  revoke(serverId: string): boolean {
    if (!this.#always.delete(serverId)) return false;
    this.#onDidChange.fire();
    return true;
  }

  /** Revokes every grant; returns how many there were. */
  revokeAll(): number {
    const n = this.#always.size;
    this.#always.clear();
    if (n) this.#onDidChange.fire();
    return n;
  }

  alwaysAllowed(): AllowedServer[] {
    return [...this.#always].map(([serverId, g]) => ({ serverId, label: g.label })).sort((a, b) => a.label.localeCompare(b.label));
  }

  toJSON(): PersistedSamplingPermissions {
    return { version: 1, always: fromEntries(this.#always) };
  }
}
