import { z } from 'zod';

/** The router slot; any other text answers 404 ALLOCATION_NOT_FOUND like an unknown id. */
export const allocationParams = z.object({ allocationId: z.string().max(100) });

export const migrationBody = z.strictObject({
  /** false does everything except removing the local accounts. */
  retirer_local: z.boolean({ message: 'retirer_local must be true or false' }),
});

export const returnBody = z.strictObject({
  /** false restores the accounts and keeps RADIUS on. */
  couper_radius: z.boolean({ message: 'couper_radius must be true or false' }),
});
