import { z } from 'zod';
import { defineMethod } from '../method';
import { emptyParams } from './common';

export const rpcDiscover = defineMethod({
  name: 'rpc.discover',
  summary: 'The OpenRPC document of this API, generated from the schemas the server validates with.',
  params: emptyParams,
  result: z.record(z.string(), z.unknown()),
  errors: [],
  scope: 'read',
  mutating: false,
});
