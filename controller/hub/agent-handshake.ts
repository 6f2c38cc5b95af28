// The handshake of an agent connection, after the controller's challenge: the agent's first frame
// is an enrol (a new agent registers its key with a one-time code, signing with that key) or a
// hello (an enrolled agent signs with its registered key). It answers who the agent is, or why it
// is refused; the session then records the link and welcomes the agent.
import type { RawData } from 'ws';
import {
  normaliseEnrolCode,
  openEnvelope,
  parseEnvelopeUnverified,
  ProtocolError,
  SEALED_VERSION,
  type EnvelopeOf,
  type LinkErrorCode,
  type SequenceGuard,
} from '../../protocol/index.js';
import type { AllocationsService } from '../modules/allocations/index.js';

/** The agent at the other end of an open link. */
export interface SessionAgent {
  allocationId: string;
  clientId: string;
  agentId: string;
  publicKey: string;
  version: string;
}

export type HandshakeAnswer =
  | {
      agent: SessionAgent;
      /** Version 3: the agent's ephemeral X25519 key, from its verified frame. */
      sessionKey?: string | undefined;
      /** What its hello named (commands and feature flags); none at enrolment. */
      capabilities?: readonly string[];
    }
  | { refused: { code: LinkErrorCode; message: string } };

export interface HandshakeContext {
  /** The connection's challenge nonce, the `sid` of every envelope on it. */
  sid: string;
  /** Sequence numbers of the agent's frames on this connection; the handshake frame takes the first. */
  inbound: SequenceGuard;
  allocations: AllocationsService;
}

export type FirstFrame = EnvelopeOf<'enrol' | 'hello'>;

/**
 * The agent's first frame, its signature not checked yet: it names the protocol version the agent
 * chose from the challenge's offer, in which the answer (welcome, or an error) is written.
 */
export const readFirstFrame = (raw: RawData, sid: string): FirstFrame =>
  parseEnvelopeUnverified(raw, { sid, expect: ['enrol', 'hello'], from: 'agent' });

/** Checks the first frame's signature and credentials. @throws ProtocolError for a malformed frame. */
export function agentHandshake(
  raw: RawData,
  first: FirstFrame,
  ctx: HandshakeContext,
): Promise<HandshakeAnswer> {
  // Before any credential is looked at, so a version 3 enrol without it does not spend its code.
  if (first.v >= SEALED_VERSION && first.body.session_key === undefined) {
    throw new ProtocolError('BAD_MESSAGE', `${first.type} of version ${first.v} without session_key`);
  }
  return first.type === 'enrol'
    ? enrol(raw, first.body.agent_key, ctx)
    : hello(raw, first.body.agent_id, ctx);
}

async function enrol(raw: RawData, agentKey: string, ctx: HandshakeContext): Promise<HandshakeAnswer> {
  // Signed by the key it registers: proof that the agent holds the secret half.
  const envelope = openEnvelope(raw, {
    publicKey: agentKey,
    sid: ctx.sid,
    expect: ['enrol'],
  });
  ctx.inbound.accept(envelope.seq);
  const { body } = envelope;
  const enrolled = await ctx.allocations.enrolAgent({
    code: normaliseEnrolCode(body.code),
    agentKey: body.agent_key,
    facts: body.facts,
    factsAt: envelope.ts,
  });
  if (!enrolled) {
    return { refused: { code: 'ENROL_CODE_INVALID', message: 'enrolment code unknown, used or expired' } };
  }
  return {
    agent: {
      allocationId: enrolled.allocationId,
      clientId: enrolled.clientId,
      agentId: enrolled.agentId,
      publicKey: body.agent_key,
      version: body.agent_version,
    },
    sessionKey: body.session_key,
  };
}

const UNKNOWN = {
  refused: { code: 'AGENT_UNKNOWN', message: 'no enrolled agent with this id and key' },
} as const;

async function hello(raw: RawData, agentId: string, ctx: HandshakeContext): Promise<HandshakeAnswer> {
  const record = await ctx.allocations.findAgent(agentId);
  if (!record) return UNKNOWN;
  let envelope;
  try {
    envelope = openEnvelope(raw, { publicKey: record.publicKey, sid: ctx.sid, expect: ['hello'] });
  } catch (err) {
    // A key that is not the registered one reads exactly like an unknown agent.
    if (err instanceof ProtocolError && err.code === 'BAD_SIGNATURE') return UNKNOWN;
    throw err;
  }
  // Only after the signature: an unauthenticated peer learns nothing about revocations.
  if (record.revoked) return { refused: { code: 'AGENT_REVOKED', message: 'this agent was revoked' } };
  ctx.inbound.accept(envelope.seq);
  return {
    agent: {
      allocationId: record.allocationId,
      clientId: record.clientId,
      agentId,
      publicKey: record.publicKey,
      version: envelope.body.agent_version,
    },
    sessionKey: envelope.body.session_key,
    capabilities: envelope.body.capabilities,
  };
}
