import { openRpcDocument } from '../../openrpc-document';
import type { Handler } from '../../rpc/handler';

export const rpcDiscover: Handler<'rpc.discover'> = async () => openRpcDocument();
