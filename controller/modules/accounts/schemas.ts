import { z } from 'zod';

export const email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'Invalid e-mail address' }).max(254));

export const registerBody = z.object({
  email,
  password: z.string().min(1, 'Password is required'),
  name: z.string().trim().min(1, 'Name is required').max(120),
  kind: z.enum(['client', 'technician', 'partner']),
});

export const loginBody = z.object({
  email,
  password: z.string().min(1, 'Password is required'),
});
