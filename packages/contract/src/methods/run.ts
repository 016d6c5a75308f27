import { z } from 'zod';
import { defineMethod } from '../method';
import { run } from '../records';

export const runGet = defineMethod({
  name: 'run.get',
  summary: 'One run: status, root event and counts.',
  params: z.strictObject({ run_id: z.string().min(1) }),
  result: z.object({ run }),
  errors: ['NOT_FOUND'],
  mutating: false,
});
