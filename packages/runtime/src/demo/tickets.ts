/** Realistic support tickets for the demo bundle, generated deterministically from an index. */
const CUSTOMERS = [
  'Amara Okafor', 'Lukas Brandt', 'Sofia Marino', 'Kenji Watanabe', 'Priya Raman', 'Mateo García', 'Chloé Martin', 'Oliver Hughes',
  'Ingrid Johansson', 'Tomasz Nowak', 'Aisha Bello', 'Daniel Cohen', 'Elena Petrova', 'Hugo Lefèvre', 'Nadia Haddad', 'Sean Murphy',
];

interface TicketTemplate {
  subject: string;
  body: string;
  channel: 'email' | 'chat' | 'phone' | 'voicemail' | 'fax';
  priority?: 'low' | 'normal' | 'high';
}

const TEMPLATES: TicketTemplate[] = [
  { subject: 'Refund for damaged blender', body: 'The jug arrived cracked. I would like a refund please.', channel: 'email' },
  { subject: 'Where is my parcel?', body: 'Tracking has not moved for five days.', channel: 'chat' },
  { subject: 'I was charged twice for one order', body: 'Two identical charges on my card statement.', channel: 'email' },
  { subject: 'Refund request: wrong size shoes', body: 'Ordered 42, received 38. Please refund.', channel: 'chat' },
  { subject: 'How do I change my delivery address?', body: 'Moving next week.', channel: 'email', priority: 'low' },
  { subject: 'Refund for late delivery', body: 'The gift arrived after the birthday. I want my money back.', channel: 'phone' },
  { subject: 'Voicemail from customer', body: '[transcript] ...yeah hi, the heater stopped working after two days, I just want my money back...', channel: 'voicemail' },
  { subject: 'Laptop stand missing screws — refund?', body: 'Cannot assemble it. Refund or replacement.', channel: 'email' },
  { subject: 'Order arrived broken, need it sorted today', body: 'Third time this happens. Escalating.', channel: 'phone', priority: 'high' },
  { subject: 'Can I add gift wrap to my order?', body: 'It is a present.', channel: 'chat' },
  { subject: 'Refund the unused subscription month', body: 'I cancelled on the 2nd but was billed for the whole month.', channel: 'email' },
  { subject: 'Fax: order complaint', body: '(scanned fax, 3 pages)', channel: 'fax' },
];

export interface DemoTicket {
  entity_id: string;
  payload: {
    ticket_id: string;
    order_id: string;
    customer: string;
    subject: string;
    body: string;
    channel: TicketTemplate['channel'];
    priority: 'low' | 'normal' | 'high';
  };
}

export function demoTicket(index: number, prefix = 'T'): DemoTicket {
  const template = TEMPLATES[index % TEMPLATES.length]!;
  const customer = CUSTOMERS[(index * 7) % CUSTOMERS.length]!;
  const ticketId = `${prefix}-${1001 + index}`;
  return {
    entity_id: `ticket-${ticketId}`,
    payload: {
      ticket_id: ticketId,
      order_id: `ORD-${(48_211 + index * 37) % 100_000}`,
      customer,
      subject: template.subject,
      body: template.body,
      channel: template.channel,
      priority: template.priority ?? 'normal',
    },
  };
}
