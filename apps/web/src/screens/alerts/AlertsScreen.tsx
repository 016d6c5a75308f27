/**
 * Alerts: the rules that turn runtime transitions into notices, the destinations that receive
 * them, the history of notices with their delivery status, and silences. Each part has its own
 * path (`/alerts`, `/alerts/destinations`, `/alerts/history`, `/alerts/silences`) and keeps its
 * filters in the query string, so a pasted link opens the same view.
 */
import { NavLink, useParams } from 'react-router';
import { paths } from '../../paths';
import { NotFound } from '../../shell/NotFound';
import { DestinationsSection } from './DestinationsSection';
import { NoticesSection } from './NoticesSection';
import { RulesSection } from './RulesSection';
import { SilencesSection } from './SilencesSection';
import './AlertsScreen.css';

const PARTS = [
  { part: 'rules', label: 'Rules' },
  { part: 'destinations', label: 'Destinations' },
  { part: 'history', label: 'History' },
  { part: 'silences', label: 'Silences' },
] as const;

type Part = (typeof PARTS)[number]['part'];

export default function AlertsScreen() {
  const sub = useParams()['*'] ?? '';
  const part: Part | undefined = sub === '' ? 'rules' : PARTS.find((p) => p.part === sub && p.part !== 'rules')?.part;
  if (!part) return <NotFound />;
  return (
    <section className="screen screen-page alerts-screen" aria-labelledby="alerts-title">
      <div className="screen-header">
        <h1 id="alerts-title">Alerts</h1>
        <span className="muted hide-narrow">Who is told when something goes wrong, and what was sent</span>
      </div>
      <nav className="alerts-tabs" aria-label="Alerts">
        {PARTS.map((p) => (
          <NavLink key={p.part} to={paths.alerts(p.part)} end className="alerts-tab" data-testid={`alerts-tab-${p.part}`}>
            {p.label}
          </NavLink>
        ))}
      </nav>
      {part === 'rules' && <RulesSection />}
      {part === 'destinations' && <DestinationsSection />}
      {part === 'history' && <NoticesSection />}
      {part === 'silences' && <SilencesSection />}
    </section>
  );
}
