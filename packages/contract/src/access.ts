/** The scope and role schemas; the rules themselves live in ./roles (zod-free, for the console). */
import { z } from 'zod';
import { ROLES, SCOPES } from './roles';

export * from './roles';

export const scope = z.enum(SCOPES);
export const role = z.enum(ROLES);
