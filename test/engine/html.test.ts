/** The one template tag of the pages for people (engine/html.ts): every value is text unless it is markup the tag made. */
import t from 'tap';
import { html, raw } from '../../engine/html.ts';

t.test('values are escaped; fragments made by the tag are kept; arrays join; nothing renders for null and false', async (t) => {
  const hostile = `<script>alert("x")</script>' onmouseover='y`;
  t.equal(html`<p title="${hostile}">${hostile}</p>`.text,
    '<p title="&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#39; onmouseover=&#39;y">&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#39; onmouseover=&#39;y</p>');
  t.equal(html`<ul>${['a&b', html`<li>kept</li>`]}</ul>`.text, '<ul>a&#38;b<li>kept</li></ul>');
  t.equal(html`${null}${undefined}${false}${0}`.text, '0');
  t.equal(html`${raw('<br>')}`.text, '<br>');
  t.equal(html`${{ toString: () => '<b>' } as unknown as string}`.text, '&#60;b&#62;', 'an object is text too');
});
