/** An organization for the on-call pages: two members on one team (overrides name members), and an admin key. */
import { CONFIG, type Vigil } from './harness.ts';
import { person } from './console.ts';

export async function onCallOrganization(vigil: Vigil) {
  const org = await vigil.organization('business');
  const api = await org.key(['api:admin']);
  const me = await person(vigil, { [org.id]: 'member' });
  const ben = await person(vigil, { [org.id]: 'member' });
  const team = await api.post(`${CONFIG}/teams`, { name: 'Payments', member_emails: [me.email, ben.email] });
  if (team.status !== 201) throw new Error(`team not created: ${JSON.stringify(team.body)}`);
  return { org, api, me, ben };
}
