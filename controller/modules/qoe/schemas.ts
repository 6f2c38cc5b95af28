// Request schemas of the QoE routes.
import { z } from 'zod';
import { queryInt, routerText } from '../../http/field-schemas.js';

const metric = z.number().finite().min(0).max(1e12).nullable().optional();
const counter = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional();

const pointFields = {
  observed_at: z.iso.datetime({ offset: true }),
  rtt_ms: metric,
  jitter_ms: metric,
  packet_loss_pct: z.number().finite().min(0).max(100).nullable().optional(),
  tx_bps: metric,
  rx_bps: metric,
  wan_rx_bytes: counter,
  wan_tx_bytes: counter,
  top_consumers: z
    .array(
      z.strictObject({
        username: z.string().min(1).max(128),
        ip: z.union([z.ipv4(), z.ipv6()]),
        rx_bps: z.number().finite().min(0).max(1e12),
      }),
    )
    .max(50)
    .default([]),
};

const together = {
  check: (b: { wan_rx_bytes?: number | null; wan_tx_bytes?: number | null }) =>
    (b.wan_rx_bytes == null) === (b.wan_tx_bytes == null),
  params: { message: 'wan_rx_bytes and wan_tx_bytes come together', path: ['wan_tx_bytes'] },
};

/**
 * A telemetry point. Not strict: a router may send more (a `client_id` among them), which is
 * ignored; the client always comes from the NAS of the bridge token.
 */
export const telemetryBody = z
  .object({ nas_id: z.uuid(), ...pointFields })
  .refine(together.check, together.params);

/** A point as an agent sends it over its link: the NAS is the one of the agent's allocation. */
export const agentPoint = z.object(pointFields).refine(together.check, together.params);

const hour = z.number().int().min(0).max(23).nullable();

/** Exactly the five preferences; each optional (what is absent stays as it is). */
export const preferencesBody = z.strictObject({
  urgent_push: z.boolean().optional(),
  daily_report_push: z.boolean().optional(),
  usage_alert_push: z.boolean().optional(),
  quiet_start: hour.optional(),
  quiet_end: hour.optional(),
});

/** `limit` 1 to 100, default 30. */
export const reportsQuery = z.object({ limit: queryInt({ min: 1, max: 100 }).default(30) });

/** A kick: the NAS, the hotspot user, and optionally the Acct-Session-Id of one of its sessions. */
export const kickBody = z.strictObject({
  nas_id: z.uuid(),
  username: routerText(z.string().trim().min(1).max(128)),
  session_id: routerText(z.string().trim().min(1).max(64)).optional(),
});

export const actionParams = z.object({ id: z.uuid() });

export type KickBody = z.output<typeof kickBody>;
export type TelemetryBody = z.output<typeof telemetryBody>;
export type AgentPoint = z.output<typeof agentPoint>;
export type PreferencesBody = z.output<typeof preferencesBody>;
