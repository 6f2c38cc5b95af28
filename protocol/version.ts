/**
 * The highest protocol version this build speaks.
 * - 1: the first version.
 * - 2: version 1 plus the `batch` message (several messages under one signature and one sequence
 *   number), and the `versions` member of `challenge` that lets the two ends agree on a version.
 * - 3: version 2 with session keys: the signed enrol/hello and welcome carry each end's ephemeral
 *   X25519 key (`session_key`), and every later frame is a sealed binary frame authenticated by a MAC
 *   made with a key derived from them (`sealFrame` / `openFrame`), its bulk payloads compressed.
 */
export const PROTOCOL_VERSION = 3;

/**
 * Every envelope version this build accepts. An envelope with any other `v` is refused with
 * `UNSUPPORTED_VERSION` before its shape is looked at, because a future version may change the shape.
 */
export const SUPPORTED_VERSIONS: readonly number[] = Object.freeze([1, 2, PROTOCOL_VERSION]);

/**
 * The version every connection starts in: the controller signs its `challenge` with it so that an
 * agent of any version can read it.
 */
export const HANDSHAKE_VERSION = 1;

/** True when `v` is a version this build accepts. */
export function isSupportedVersion(v: unknown): v is number {
  return typeof v === 'number' && SUPPORTED_VERSIONS.includes(v);
}

/**
 * The version a session runs in: the highest of `offered` (a challenge's `versions`) that this build
 * speaks, up to `highest`, or 1 when nothing is offered (a controller older than version 2) or
 * nothing matches. The agent signs its `enrol`/`hello` in it; the controller then speaks the version
 * of that frame.
 */
export function negotiateVersion(offered: readonly number[] | undefined, highest = PROTOCOL_VERSION): number {
  let best = 1;
  for (const v of offered ?? []) if (isSupportedVersion(v) && v > best && v <= highest) best = v;
  return best;
}
