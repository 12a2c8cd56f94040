/**
 * The console as tests use it: a user with a password and a membership (through the operator API, as an operator
 * would), and a cookie-keeping HTTP client that signs in through the form like a browser without JavaScript.
 */
import { randomBytes } from 'node:crypto';
import type { Vigil } from './harness.ts';

export const PASSWORD = 'correct horse battery staple';

export interface Person {
  id: string;
  email: string;
  password: string;
}

/** A user with a password, a member of each organization with the role given. */
export async function person(vigil: Vigil, memberships: Record<string, 'viewer' | 'member' | 'org_admin'>, email = `p-${randomBytes(4).toString('hex')}@example.com`, name?: string): Promise<Person> {
  const made = await vigil.operator.post('/api/admin/v1/users', { email, ...(name ? { name } : {}) });
  if (made.status !== 201) throw new Error(`user not created: ${JSON.stringify(made.body)}`);
  const id = made.body.id as string;
  for (const [org, role] of Object.entries(memberships)) {
    const member = await vigil.operator.put(`/api/admin/v1/organizations/${org}/members/${id}`, { role });
    if (member.status !== 200) throw new Error(`membership not set: ${JSON.stringify(member.body)}`);
  }
  const set = await vigil.operator.put(`/api/admin/v1/users/${id}/password`, { password: PASSWORD });
  if (set.status !== 204) throw new Error(`password not set: ${JSON.stringify(set.body)}`);
  return { id, email, password: PASSWORD };
}

export interface PageAnswer {
  status: number;
  text: string;
  headers: Headers;
  location: string | null;
}

/** A browser without JavaScript: keeps cookies, follows nothing by itself, posts forms. */
export function browserless(base: string) {
  const cookies = new Map<string, string>();
  const remember = (headers: Headers) => {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
  };
  const request = async (method: string, path: string, form?: Record<string, string>, extra: Record<string, string> = {}): Promise<PageAnswer> => {
    const headers: Record<string, string> = { ...extra };
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(`${base}${path}`, { method, headers, body: form ? new URLSearchParams(form).toString() : undefined, redirect: 'manual' });
    remember(res.headers);
    return { status: res.status, text: await res.text(), headers: res.headers, location: res.headers.get('location') };
  };
  const field = (text: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(text)?.[1] ?? '';
  return {
    cookies,
    get: (path: string) => request('GET', path),
    post: (path: string, form: Record<string, string>, headers?: Record<string, string>) => request('POST', path, form, headers),
    /** a form field's value in a page (the CSRF tokens) */
    field,
    /** the sign-in form, filled and sent; answers the POST's answer */
    async signIn(email: string, password: string, next?: string): Promise<PageAnswer> {
      const page = await request('GET', `/login${next ? `?next=${encodeURIComponent(next)}` : ''}`);
      return request('POST', '/login', { _form: field(page.text, '_form'), next: field(page.text, 'next'), email, password });
    },
    /** the CSRF token of the signed-in session (from any console page) */
    async csrf(): Promise<string> {
      const page = await request('GET', '/board');
      return field(page.text, '_csrf');
    },
  };
}
