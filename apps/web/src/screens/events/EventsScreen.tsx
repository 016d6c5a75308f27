import { EventBrowser } from './EventBrowser';

export default function EventsScreen() {
  return <EventBrowser mode="events" />;
}
