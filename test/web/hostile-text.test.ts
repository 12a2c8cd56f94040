/**
 * Issue 34: every text a status page or an email shows is inert. HTML and `javascript:` URLs sent through each of
 * them (component names and notes, incident titles and updates, maintenance text, the page's title, slug and support
 * link, the subscriber's confirmation and notices, the notification email and its digest) come out as text, and a
 * link is made only of an http(s) or relative address.
 */
import t, { type Test } from 'tap';
import { REFUSED_URL, html, safeUrl } from '../../engine/html.ts';
import { renderMessagePage, renderStatusPage } from '../../web/status-page/html.ts';
import type { PublicIncident, PublicPage } from '../../web/status-page/query.ts';
import { confirmationMail, noticeMail } from '../../domain/status-page/mail.ts';
import { emailContent } from '../../outbound/email/message.ts';

const TAG = '<img src=x onerror=alert(1)>';
const QUOTE = `"><script>alert(2)</script>`;
const hostile = (what: string) => `${what} ${TAG} ${QUOTE} '&`;
const SCRIPT_URL = 'javascript:alert(3)';
const SCHEMES = [SCRIPT_URL, ' JaVaScRiPt:alert(4)', 'java\tscript:alert(5)', 'data:text/html,<script>alert(6)</script>', 'vbscript:msgbox(7)'];

/** The document carries no markup the values brought: no element, attribute or URL of theirs. */
function inert(t: Test, document: string, where: string) {
  t.notMatch(document, /<img|<script/i, `${where}: no element from a value (its text is escaped, so a handler in it stays text)`);
  const urls = [...document.matchAll(/\s(?:href|src|action)="([^"]*)"/gi)].map((m) => m[1]!);
  for (const url of urls) {
    const decoded = url.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
    t.ok(decoded === REFUSED_URL || safeUrl(decoded), `${where}: the link ${JSON.stringify(url)} is http(s), relative or refused`);
  }
  t.notMatch(document, /\s(?:href|src|action)="\s*(?:java|vb)script:/i, `${where}: no script URL`);
}

function incident(key: string, status: string): PublicIncident {
  return {
    key: hostile(key), title: hostile('title'), status: hostile(status), impact: hostile('impact'), started_at: hostile('not a date'), resolved_at: null,
    components: [hostile('affected')], updates: [{ at: '2026-03-01T12:00:00Z', status: hostile('status'), message: hostile('update') }],
  };
}

t.test('the status page shows every stored text as text, and links only http(s)', async (t) => {
  for (const support of [...SCHEMES, 'https://example.com/help?a=1&b="2"']) {
    const page: PublicPage = {
      slug: hostile('slug'), title: hostile('page title'), support_url: support, history_days: 7,
      components: [{ name: hostile('component'), description: hostile('description'), status: hostile('odd status'), note: hostile('note') }],
      open_incidents: [incident('open', 'investigating')], resolved_incidents: [incident('past', 'resolved')],
      maintenances: [{ key: hostile('m'), title: hostile('window'), message: hostile('message'), state: hostile('state'), starts_at: 'x', ends_at: 'y', components: [hostile('c')], posted_at: 'x', updated_at: 'y' }],
    };
    const document = renderStatusPage(page, { subscribe: true, refreshSeconds: 60 });
    inert(t, document, `support_url ${JSON.stringify(support)}`);
    t.match(document, 'component &#60;img src=x onerror=alert(1)&#62;', 'a component name reads as its text');
    t.match(document, 'update &#60;img', 'an incident update reads as its text');
    t.match(document, 'message &#60;img', 'a maintenance message reads as its text');
    t.equal(document.includes('Contact support'), support.startsWith('https:'), 'only an http(s) support address becomes a link');
  }
});

t.test('the subscription steps and the not-found page show their texts as text', async (t) => {
  const document = renderMessagePage(hostile('title'), [hostile('first'), hostile('second')], { action: SCRIPT_URL, button: hostile('button'), fields: { [hostile('k')]: hostile('v') } });
  inert(t, document, 'message page');
  t.match(document, `action="${REFUSED_URL}"`, 'a form that would post to a script URL posts nowhere');
});

t.test('the subscriber mail shows the page title, notice texts and links as text', async (t) => {
  for (const url of SCHEMES) {
    const confirm = confirmationMail('a@example.com', hostile('page'), url, 24);
    inert(t, confirm.html, `confirmation with ${JSON.stringify(url)}`);
    const notice = noticeMail('a@example.com', hostile('page'), url, url, { what: hostile('Incident resolved'), title: hostile('title'), lines: [hostile('line')] });
    inert(t, notice.html, `notice with ${JSON.stringify(url)}`);
  }
  const good = confirmationMail('a@example.com', 'Acme', 'https://status.example.com/acme/confirm?t=1&x=2', 24);
  t.match(good.html, 'href="https://status.example.com/acme/confirm?t=1&#38;x=2"', 'an https link stays a link');
});

t.test('the notification email and its digest show every value as text and link only http(s)', async (t) => {
  const envelope = (url: string) => ({
    type: 'alert.fired', occurred_at: hostile('at'),
    data: { alert: { title: hostile('alert'), severity: hostile('sev'), service: hostile('svc'), source: hostile('src'), status: 'firing', summary: hostile('summary'), url } },
  });
  for (const url of [...SCHEMES, 'https://vigil.example.com/alerts/1']) {
    inert(t, emailContent([envelope(url)], 'https://vigil.example.com').html, `one event, link ${JSON.stringify(url)}`);
    inert(t, emailContent([envelope(url), { type: 'card.created', occurred_at: 'x', data: { card: { key: hostile('k'), title: hostile('card'), url } } }], 'https://vigil.example.com').html, 'digest');
  }
});

t.test('the template itself: a URL attribute takes only http(s) or relative addresses, however it is spelled', async (t) => {
  for (const url of [...SCHEMES, '\u0001javascript:x', 'javascript&colon;x']) t.equal(html`<a href="${url}">x</a>`.text.includes(REFUSED_URL), !url.includes('&colon;'), JSON.stringify(url));
  t.equal(html`<a href="${html`java${'script'}:x`}">x</a>`.text, `<a href="${REFUSED_URL}">x</a>`, 'markup that spells a script URL is refused too');
  t.equal(html`<a href="${html`javascript&colon;x`}">x</a>`.text, `<a href="${REFUSED_URL}">x</a>`, 'so is a named reference that makes a colon');
  for (const url of ['https://a.example/x?y=1', 'http://a', '/board/K-1', 'feed.atom', '#top', '//cdn.example/x', '?q=1:2']) {
    t.notMatch(html`<a href="${url}">x</a>`.text, REFUSED_URL, `${url} is a link`);
  }
  t.equal(html`<p title="${SCRIPT_URL}">${SCRIPT_URL}</p>`.text, `<p title="${SCRIPT_URL}">${SCRIPT_URL}</p>`, 'outside a URL attribute it is plain text');
});
