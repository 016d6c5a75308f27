import { openRpcDocument } from '../../http/app';
import type { Handler } from '../../rpc/handler';

export const rpcDiscover: Handler<'rpc.discover'> = async () => openRpcDocument();
