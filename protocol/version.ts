/** The protocol version this build speaks and puts in the `v` field of every envelope it signs. */
export const PROTOCOL_VERSION = 1;

/**
 * Every envelope version this build accepts. An envelope with any other `v` is refused with
 * `UNSUPPORTED_VERSION` before its shape is looked at, because a future version may change the shape.
 */
export const SUPPORTED_VERSIONS: readonly number[] = Object.freeze([PROTOCOL_VERSION]);

/** True when `v` is a version this build accepts. */
export function isSupportedVersion(v: unknown): v is number {
  return typeof v === 'number' && SUPPORTED_VERSIONS.includes(v);
}
