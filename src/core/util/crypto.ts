import * as crypto from 'node:crypto';

/** crypto.randomUUID (which needs no `this`), bound once: the bundle calls it by a short name at its 7 uses. */
export const { randomUUID } = crypto;

/** The SHA-256 digest of `text`, in hex: written once for its 3 uses. */
export const sha256 = (text: string): string => crypto.createHash('sha256').update(text).digest('hex');
