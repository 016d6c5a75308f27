/** `/agents` lists the agents; `/agents/<id>` is one agent's page. */
import { useParams } from 'react-router';
import { AgentList } from './AgentList';
import { AgentPage } from './AgentPage';

export default function AgentsScreen() {
  const agentId = useParams()['*'] || undefined;
  return agentId ? <AgentPage agentId={agentId} /> : <AgentList />;
}
