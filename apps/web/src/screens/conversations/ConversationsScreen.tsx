/** `/conversations` lists sessions; `/conversations/<session id>` is one transcript. */
import { useParams } from 'react-router';
import { ConversationList } from './ConversationList';
import { Transcript } from './Transcript';

export default function ConversationsScreen() {
  const sessionId = useParams()['*'] || undefined;
  return sessionId ? <Transcript sessionId={sessionId} /> : <ConversationList />;
}
