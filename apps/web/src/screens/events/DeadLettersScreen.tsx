import { EventBrowser } from './EventBrowser';

/** The event browser fixed to events that have dead letters, with failure columns. */
export default function DeadLettersScreen() {
  return <EventBrowser mode="dead-letters" />;
}
