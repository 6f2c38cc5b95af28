// Builds the OpenAPI 3.1 document from the routes registered on the Api (same zod schemas).
import { z } from 'zod';
import type { Api } from './api.js';

export function buildOpenApi(api: Api, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { spec } of api.routes) {
    const path = spec.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const op: Record<string, unknown> = {
      summary: spec.summary,
      tags: spec.tags,
      responses: {
        [String(spec.status ?? 200)]: { description: 'Success' },
        default: { description: 'Error envelope', content: { 'application/json': { schema: errorSchema } } },
      },
    };
    if (spec.auth !== 'public') op.security = [{ bearer: [] }];
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ['path', spec.params],
      ['query', spec.query],
    ] as const) {
      if (!schema) continue;
      const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
        properties?: Record<string, unknown>;
        required?: string[];
      };
      for (const [name, s] of Object.entries(json.properties ?? {})) {
        parameters.push({
          name,
          in: where,
          required: where === 'path' || !!json.required?.includes(name),
          schema: s,
        });
      }
    }
    for (const m of spec.path.matchAll(/:([A-Za-z_]+)/g)) {
      if (!parameters.some((p) => (p as { name: string }).name === m[1])) {
        parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
      }
    }
    if (parameters.length) op.parameters = parameters;
    if (spec.body) {
      op.requestBody = {
        required: true,
        content: {
          'application/json': { schema: z.toJSONSchema(spec.body, { io: 'input', unrepresentable: 'any' }) },
        },
      };
    }
    (paths[path] ??= {})[spec.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'ticketnet controller', version },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}

const errorSchema = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { const: false },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
    details: {},
  },
};
