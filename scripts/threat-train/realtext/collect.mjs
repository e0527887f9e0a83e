// Reproducible extraction of a real-text benign corpus from fetched git mirrors.
// Usage: node collect.mjs [only-slug,...]   (writes passages.jsonl + sources.json)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';

const MIRROR = '/work/.mirror';
const OUT = './passages.jsonl';
const SRC_OUT = './sources.json';
const MIN = 150, MAX = 1500;

// ---------- git helpers ----------
const gd = (repo) => `${MIRROR}/${repo.replace('/', '+')}/repo`;
function head(repo) { return execFileSync('git', ['--git-dir', gd(repo), 'rev-parse', 'HEAD']).toString().trim(); }
function lsTree(repo) {
  const out = execFileSync('git', ['--git-dir', gd(repo), 'ls-tree', '-r', '-l', '-z', 'HEAD'], { maxBuffer: 1 << 30 }).toString();
  return out.split('\0').filter(Boolean).map((l) => {
    const [meta, path] = l.split('\t'); const [, type, oid, size] = meta.split(/\s+/);
    return { path, oid, type, size: Number(size) };
  }).filter((e) => e.type === 'blob');
}
function readBlobs(repo, entries) { // batch read via cat-file --batch
  const res = new Map();
  for (let s = 0; s < entries.length; s += 2000) {
    const part = entries.slice(s, s + 2000);
    const buf = execFileSync('git', ['--git-dir', gd(repo), 'cat-file', '--batch'], { input: part.map((e) => e.oid).join('\n') + '\n', maxBuffer: 2 ** 31 });
    let pos = 0;
    for (const e of part) {
      const nl = buf.indexOf(10, pos); const hdr = buf.slice(pos, nl).toString(); pos = nl + 1;
      const m = hdr.split(' '); if (m[1] === 'missing') continue;
      const n = Number(m[2]); res.set(e.path, buf.slice(pos, pos + n).toString('utf8')); pos += n + 1;
    }
  }
  return res;
}

// ---------- language ----------
const NONLATIN = { ja: /[\u3040-\u30ff]/g, zh: /[\u4e00-\u9fff]/g, ko: /[\uac00-\ud7af]/g, ru: /[\u0400-\u04ff]/g, uk: /[\u0400-\u04ff]/g, bg: /[\u0400-\u04ff]/g, sr: /[\u0400-\u04ff]/g,
  ar: /[\u0600-\u06ff]/g, fa: /[\u0600-\u06ff]/g, he: /[\u0590-\u05ff]/g, hi: /[\u0900-\u097f]/g, ne: /[\u0900-\u097f]/g, th: /[\u0e00-\u0e7f]/g, el: /[\u0370-\u03ff]/g, ta: /[\u0b80-\u0bff]/g, bn: /[\u0980-\u09ff]/g, be: /[\u0400-\u04ff]/g, mr: /[\u0900-\u097f]/g, sa: /[\u0900-\u097f]/g, te: /[\u0c00-\u0c7f]/g, kn: /[\u0c80-\u0cff]/g, ml: /[\u0d00-\u0d7f]/g, si: /[\u0d80-\u0dff]/g, km: /[\u1780-\u17ff]/g, lo: /[\u0e80-\u0eff]/g };
const EN = new Set('the and of to is in that you for with this are be can it your as on or if an will by not from have use when which'.split(' '));
const STOP = { es: 'el la de que y en los las del por para una con es se su al como más', fr: 'le la les de des et est une un pour dans que qui sur vous avec du au pas', de: 'der die das und ist nicht mit den ein eine zu von sie auf für werden dem auch', pt: 'o a os as de que e do da em um uma para com não por se no na', it: 'il la di che e un una per non con del della sono si le gli', pl: 'i w na z się nie do jest to że jak o dla przez', tr: 've bir bu için ile da de olarak daha gibi olan ya', vi: 'của và là các có được trong cho một những với không này khi', id: 'dan yang di untuk dengan ini dari dalam akan tidak pada atau adalah', nl: 'de het een en van is dat op te niet met voor zijn', sv: 'och att det som en är på för med av inte till', cs: 'a se na je v že to s pro jako do', ro: 'și de la în cu pe să nu este care un o', fi: 'ja on ei se että tai kun voi', ca: 'el la de i que els les per amb una és', da: 'og at det er en til på med som ikke' };
const STOPS = Object.fromEntries(Object.entries(STOP).map(([k, v]) => [k, new Set(v.split(' '))]));
function normLang(l) {
  l = (l || 'en').toLowerCase().replace('_', '-');
  if (l.startsWith('zh')) return 'zh'; if (l.startsWith('pt')) return 'pt'; if (l === 'nb' || l === 'no') return 'no'; if (l === 'np') return 'ne'; if (l === 'fil') return 'tl';
  return l.split('-')[0];
}
function detectLang(text, hint) {
  const l = normLang(hint);
  const letters = (text.match(/\p{L}/gu) || []).length || 1;
  if (NONLATIN[l]) {
    const n = (text.match(NONLATIN[l]) || []).length;
    if (l === 'ja' && n === 0 && (text.match(/[\u4e00-\u9fff]/g) || []).length / letters > 0.2) return 'ja';
    return n / letters > 0.15 ? l : 'en';
  }
  if (l === 'en') return 'en';
  const words = text.toLowerCase().match(/\p{L}+/gu) || [];
  let en = 0, tl = 0; const st = STOPS[l];
  for (const w of words) { if (EN.has(w)) en++; if (st && st.has(w)) tl++; }
  if (!st) return en / (words.length || 1) > 0.12 ? 'en' : l;
  return en > tl * 1.5 && en / (words.length || 1) > 0.06 ? 'en' : l;
}

// ---------- chunking ----------
function stripFront(t) {
  t = t.replace(/^\uFEFF/, '');
  t = t.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '').replace(/^\+\+\+\r?\n[\s\S]*?\r?\n\+\+\+\r?\n/, '');
  return t.replace(/<!--[\s\S]*?-->/g, '').replace(/\r\n/g, '\n');
}
function blocks(t) { // paragraph groups, keeping fenced code intact
  const out = []; let cur = []; let fence = null;
  for (const line of t.split('\n')) {
    const f = line.match(/^\s*(```+|~~~+)/);
    if (f) { if (!fence) fence = f[1][0]; else if (f[1][0] === fence) fence = null; }
    if (!fence && line.trim() === '') { if (cur.length) out.push(cur.join('\n')); cur = []; } else cur.push(line);
  }
  if (cur.length) out.push(cur.join('\n'));
  return out;
}
const isHeading = (b, rst) => /^#{1,6}\s/.test(b) || (rst && /^[^\n]+\n[=\-~^"'`#*+]{3,}\s*$/.test(b)) || (rst && /^([=\-~#*])\1{2,}\n[^\n]+\n\1{3,}\s*$/.test(b));
function splitLong(s) {
  if (s.length <= MAX) return [s];
  const out = []; let cur = '';
  for (const line of s.split('\n')) {
    if (cur && cur.length + line.length + 1 > MAX) { out.push(cur); cur = ''; }
    cur = cur ? cur + '\n' + line : line.slice(0, MAX);
  }
  if (cur) out.push(cur);
  return out;
}
function chunkDoc(text, rst = false) {
  const bs = blocks(stripFront(text)); const out = []; let cur = '';
  const flush = () => { if (cur.trim()) out.push(cur.trim()); cur = ''; };
  for (const b of bs) {
    if (isHeading(b, rst) && cur.length >= MIN) flush();
    if (cur && cur.length + b.length + 2 > MAX) flush();
    if (b.length > MAX) { flush(); for (const p of splitLong(b)) out.push(p); continue; }
    cur = cur ? cur + '\n\n' + b : b;
  }
  flush();
  return out;
}
function good(c) {
  if (c.length < MIN || c.length > MAX + 200) return false;
  let fenceChars = 0, f = false;
  for (const line of c.split('\n')) { if (/^\s*(```|~~~)/.test(line)) { f = !f; fenceChars += line.length + 1; continue; } if (f) fenceChars += line.length + 1; }
  if (fenceChars / c.length > 0.8) return false;
  const lines = c.split('\n'); const tab = lines.filter((l) => /^\s*\|/.test(l));
  if (tab.length >= 3 && tab.length / lines.length > 0.6) {
    const cells = tab.join(' ').split('|').map((s) => s.trim()).filter((s) => s && !/^:?-+:?$/.test(s));
    if (cells.filter((s) => /^[-+\d.,%$\s]+$/.test(s)).length / (cells.length || 1) > 0.4) return false;
  }
  const letters = (c.match(/\p{L}/gu) || []).length;
  if (letters / c.length < 0.3) return false;
  return true;
}

// ---------- kind ----------
function kindOf(path, dflt = 'guide') {
  const p = path.toLowerCase(); const b = p.split('/').pop();
  if (/issue_template|pull_request_template/.test(p)) return 'issue_template';
  if (/^(changelog|changes|history|releases|news)/.test(b) || /\/changelog/.test(p)) return 'changelog';
  if (/^contributing/.test(b) || /\/contribut/.test(p)) return 'contributing';
  if (/^(security|code_of_conduct|support|governance)/.test(b)) return 'other';
  if (/(^|\/)(adr|decisions)\//.test(p)) return 'adr';
  if (/runbook/.test(p)) return 'runbook';
  if (/faq/.test(p)) return 'faq';
  if (/^readme/.test(b)) return 'readme';
  if (/(^|\/)(api|reference|references|rules|tsconfig-reference)\//.test(p)) return 'api_docs';
  return dflt;
}

// ---------- sampling ----------
function sample(arr, cap) {
  if (arr.length <= cap) return arr;
  const out = []; for (let i = 0; i < cap; i++) out.push(arr[Math.floor((i * arr.length) / cap)]);
  return out;
}

// ---------- generic doc source ----------
const META = /^(\.github\/)?(README|CONTRIBUTING|SECURITY|CODE_OF_CONDUCT|SUPPORT|GOVERNANCE)[^/]*\.(md|rst|txt)$|^\.github\/(ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE)/i;
function docSource(o) {
  return () => {
    const files = lsTree(o.repo).filter((e) => e.size < 400000 && /\.(md|mdx|rst|txt|markdown|ya?ml)$/i.test(e.path) && (o.include.test(e.path) || (o.meta !== false && META.test(e.path))) && !(o.exclude && o.exclude.test(e.path)))
      .filter((e) => !/\.ya?ml$/i.test(e.path) || /ISSUE_TEMPLATE/i.test(e.path));
    const texts = readBlobs(o.repo, files); const items = [];
    for (const e of files) {
      const t = texts.get(e.path); if (!t) continue;
      const hint = o.lang ? o.lang(e.path) : 'en';
      const kind = o.kind ? o.kind(e.path) : kindOf(e.path, o.dflt);
      const chunks = /ISSUE_TEMPLATE.*\.ya?ml$/i.test(e.path) ? [t.trim().slice(0, MAX)] : chunkDoc(t, /\.rst$/i.test(e.path));
      for (const c of chunks) if (good(c)) items.push({ text: c, path: e.path, kind, lang: detectLang(c, hint) });
    }
    return items;
  };
}
const seg = (i, map = {}) => (p) => { const s = p.split('/')[i] || 'en'; return map[s] ?? s; };

// ---------- special sources ----------
function tldrSource(repo) {
  return () => {
    const langs = { pages: 'en', 'pages.de': 'de', 'pages.es': 'es', 'pages.fr': 'fr', 'pages.ja': 'ja', 'pages.zh': 'zh' };
    const quota = { en: 750, de: 250, es: 250, fr: 250, ja: 250, zh: 250 };
    const all = lsTree(repo).filter((e) => e.path.endsWith('.md') && langs[e.path.split('/')[0]]);
    let chosen = [];
    for (const [dir, l] of Object.entries(langs)) chosen = chosen.concat(sample(all.filter((e) => e.path.split('/')[0] === dir), Math.ceil(quota[l] * 1.15)));
    const texts = readBlobs(repo, chosen); const items = [];
    for (const e of chosen) { const t = (texts.get(e.path) || '').trim(); if (t.length >= 80 && t.length <= MAX + 200) items.push({ text: t, path: e.path, kind: 'tldr', lang: langs[e.path.split('/')[0]] }); }
    return items;
  };
}
function bipiaSource(repo) {
  return () => {
    const files = lsTree(repo).filter((e) => /^benchmark\/(email|code)\/(train|test)\.jsonl$/.test(e.path));
    const texts = readBlobs(repo, files); const items = [];
    for (const e of files) for (const line of texts.get(e.path).split('\n')) {
      if (!line.trim()) continue; const o = JSON.parse(line);
      const isEmail = e.path.includes('/email/');
      let ctx = Array.isArray(o.context) ? o.context.join('\n') : o.context;
      if (isEmail) ctx = ctx.replace(/\|(EMAIL_FROM|RECEIVED DATE|CONTENT):/g, '\n$1:');
      for (const c of (ctx.length > MAX ? chunkDoc(ctx) : [ctx.trim()])) if (c.length >= 100 && c.length <= MAX + 200) items.push({ text: c, path: e.path, kind: isEmail ? 'email' : 'qa_answer', lang: detectLang(c, 'en') });
    }
    return items;
  };
}
function spamAssassinHam(repo) {
  return () => {
    const files = lsTree(repo).filter((e) => /^data\/easy-ham-[12]\/.*\.txt$/.test(e.path));
    const texts = readBlobs(repo, files); const items = [];
    for (const e of files) {
      const raw = texts.get(e.path) || ''; const i = raw.search(/\r?\n\r?\n/); if (i < 0) continue;
      const hdr = raw.slice(0, i); const body = raw.slice(i).trim();
      if (/content-type:\s*(multipart|text\/html)/i.test(hdr) || /<html|<body/i.test(body)) continue;
      if (/content-transfer-encoding:\s*(base64|quoted-printable)/i.test(hdr)) continue;
      const subj = (hdr.match(/^Subject:(.*(?:\n[ \t].*)*)/mi) || ['', ''])[1].replace(/\s+/g, ' ').trim();
      const chunks = chunkDoc(body).filter(good);
      chunks.slice(0, 2).forEach((c, k) => items.push({ text: (k === 0 && subj ? `Subject: ${subj}\n\n` : '') + c, path: e.path, kind: 'email', lang: detectLang(c, 'en') }));
    }
    return items;
  };
}
function logSource(repo, paths, per = 10) {
  return () => {
    const files = lsTree(repo).filter((e) => paths.includes(e.path));
    const texts = readBlobs(repo, files); const items = [];
    for (const e of files) {
      const lines = (texts.get(e.path) || '').split('\n').filter((l) => l.trim());
      for (let i = 0; i + per <= lines.length; i += per) { const t = lines.slice(i, i + per).join('\n'); if (t.length >= MIN && t.length <= MAX + 200) items.push({ text: t, path: e.path, kind: 'log', lang: 'en' }); }
    }
    return items;
  };
}
function pypaAdvisories(repo) {
  return () => {
    const files = lsTree(repo).filter((e) => /^vulns\/.*\.yaml$/.test(e.path));
    const texts = readBlobs(repo, files); const items = [];
    for (const e of files) {
      const t = texts.get(e.path) || ''; const m = t.match(/^details:\s*(?:[|>][-+]?\s*\n)?([\s\S]*?)\n(?=[a-z_]+:)/m); if (!m) continue;
      let d = m[1].split('\n').map((l) => l.replace(/^ {2}/, '')).join('\n').trim();
      if (/^['"]/.test(d)) d = d.slice(1, -1).replace(/''/g, "'").replace(/\\n/g, '\n').replace(/\s*\n\s*/g, ' ');
      for (const c of chunkDoc(d)) if (good(c)) items.push({ text: c, path: e.path, kind: 'other', lang: 'en' });
    }
    return items;
  };
}
function configSource(repos) { // YAML/TOML/JSON config files from the train repos, one file (or a blank-line section) per passage
  return repos.map((repo) => ({ slug: 'cfg-' + repo.replace(/[^a-z0-9]+/gi, '-').toLowerCase(), repo, split: 'train', cap: 150, fn: () => {
    const files = lsTree(repo).filter((e) => e.size < 20000 && /(\.ya?ml|\.toml|(^|\/)(package|tsconfig|\.eslintrc|renovate|\.prettierrc)[^/]*\.json)$/i.test(e.path) && !/(^|\/)(node_modules|test|tests|fixtures|__tests__|playground)\//.test(e.path) && !/lock/.test(e.path) && !/ISSUE_TEMPLATE/.test(e.path));
    const texts = readBlobs(repo, files); const items = [];
    for (const e of files) { const t = (texts.get(e.path) || '').trim(); const parts = t.length <= MAX ? [t] : blocks(t).reduce((a, b) => { if (a.length && a[a.length - 1].length + b.length < MAX) a[a.length - 1] += '\n\n' + b; else a.push(b); return a; }, []);
      for (const p of parts) if (p.length >= MIN && p.length <= MAX) items.push({ text: p, path: e.path, kind: 'config', lang: 'en' }); }
    return items;
  } }));
}

// ---------- source registry ----------
const MD = /\.(md|mdx)$/;
const react = ['bn', 'cs', 'ja', 'zh-hans', 'zh-hant', 'es', 'ko', 'fr', 'ru', 'pt-br', 'tr', 'uk', 'de', 'it', 'pl', 'vi', 'id', 'fa', 'he', 'ar', 'hi'];
const SOURCES = [
  // HELD OUT
  { slug: 'fastapi', repo: 'fastapi/fastapi', split: 'heldout', cap: 2000, fn: docSource({ repo: 'fastapi/fastapi', include: /^docs\/[^/]+\/docs\/.*\.md$/, lang: seg(1), exclude: /release-notes|external-links|llm-prompt|_llm-test/ }) },
  { slug: 'flask', repo: 'pallets/flask', split: 'heldout', cap: 2000, fn: docSource({ repo: 'pallets/flask', include: /^(docs\/.*\.rst|CHANGES\.rst|examples\/.*README.*)$/ }) },
  { slug: 'vscode-ext-samples', repo: 'microsoft/vscode-extension-samples', split: 'heldout', cap: 2000, fn: docSource({ repo: 'microsoft/vscode-extension-samples', include: /(^|\/)README\.md$/i, dflt: 'readme' }) },
  { slug: 'tldr', repo: 'tldr-pages/tldr', split: 'heldout', cap: 2000, fn: tldrSource('tldr-pages/tldr') },
  { slug: 'bipia', repo: 'microsoft/BIPIA', split: 'heldout', cap: 2000, fn: bipiaSource('microsoft/BIPIA') },
  // TRAIN
  { slug: 'vuejs-docs', repo: 'vuejs/docs', split: 'train', cap: 1500, fn: docSource({ repo: 'vuejs/docs', include: /^src\/.*\.md$/ }) },
  ...['ja', 'zh-cn', 'ko', 'fr', 'ru', 'it'].map((l) => ({ slug: 'vuejs-docs-' + l, repo: 'vuejs-translations/docs-' + l, split: 'train', cap: 1500, fn: docSource({ repo: 'vuejs-translations/docs-' + l, include: /^src\/.*\.md$/, lang: () => l, meta: false }) })),
  { slug: 'vite', repo: 'vitejs/vite', split: 'train', cap: 1500, fn: docSource({ repo: 'vitejs/vite', include: /^(docs\/.*\.md|packages\/[^/]+\/(CHANGELOG|README)\.md)$/ }) },
  ...react.map((l) => ({ slug: 'react-' + l, repo: `reactjs/${l}.react.dev`, split: 'train', cap: 1500, fn: docSource({ repo: `reactjs/${l}.react.dev`, include: /^src\/content\/.*\.md$/, lang: () => l }) })),
  { slug: 'rust-book', repo: 'rust-lang/book', split: 'train', cap: 1500, fn: docSource({ repo: 'rust-lang/book', include: /^src\/.*\.md$/ }) },
  { slug: 'rust-by-example', repo: 'rust-lang/rust-by-example', split: 'train', cap: 1500, fn: docSource({ repo: 'rust-lang/rust-by-example', include: /^src\/.*\.md$/ }) },
  { slug: 'cargo', repo: 'rust-lang/cargo', split: 'train', cap: 1500, fn: docSource({ repo: 'rust-lang/cargo', include: /^(doc\/(book|contrib)\/src\/.*\.md|CHANGELOG\.md)$/ }) },
  { slug: 'typescript-website', repo: 'microsoft/TypeScript-Website', split: 'train', cap: 1500, fn: docSource({ repo: 'microsoft/TypeScript-Website', include: /^packages\/(documentation|tsconfig-reference|playground-handbook|glossary)\/copy\/.*\.(md|mdx)$/, lang: seg(3) }) },
  { slug: 'prometheus-docs', repo: 'prometheus/docs', split: 'train', cap: 1500, fn: docSource({ repo: 'prometheus/docs', include: /^docs\/.*\.md$/ }) },
  { slug: 'astro-docs', repo: 'withastro/docs', split: 'train', cap: 1500, fn: docSource({ repo: 'withastro/docs', include: /^src\/content\/docs\/.*\.mdx?$/, lang: seg(3) }) },
  { slug: 'expressjs', repo: 'expressjs/expressjs.com', split: 'train', cap: 1500, fn: docSource({ repo: 'expressjs/expressjs.com', include: /^src\/content\/(docs|blog)\/.*\.mdx?$/, lang: (p) => p.startsWith('src/content/docs/') ? seg(3)(p) : 'en' }) },
  { slug: 'nodejs-org', repo: 'nodejs/nodejs.org', split: 'train', cap: 1500, fn: docSource({ repo: 'nodejs/nodejs.org', include: /^apps\/site\/pages\/.*\.mdx?$/, lang: seg(3) }) },
  { slug: 'k8s-community', repo: 'kubernetes/community', split: 'train', cap: 1500, fn: docSource({ repo: 'kubernetes/community', include: MD }) },
  { slug: 'svelte', repo: 'sveltejs/svelte', split: 'train', cap: 1500, fn: docSource({ repo: 'sveltejs/svelte', include: /^(documentation\/.*\.md|packages\/svelte\/CHANGELOG\.md)$/ }) },
  { slug: 'nuxt', repo: 'nuxt/nuxt', split: 'train', cap: 1500, fn: docSource({ repo: 'nuxt/nuxt', include: /^docs\/.*\.md$/ }) },
  { slug: 'eslint', repo: 'eslint/eslint', split: 'train', cap: 1500, fn: docSource({ repo: 'eslint/eslint', include: /^(docs\/src\/.*\.md|CHANGELOG\.md)$/ }) },
  { slug: 'webpack-docs', repo: 'webpack/webpack.js.org', split: 'train', cap: 1500, fn: docSource({ repo: 'webpack/webpack.js.org', include: /^src\/content\/.*\.mdx?$/ }) },
  { slug: 'click', repo: 'pallets/click', split: 'train', cap: 1500, fn: docSource({ repo: 'pallets/click', include: /^(docs\/.*\.(rst|md)|CHANGES\.rst)$/ }) },
  { slug: 'eng-practices', repo: 'google/eng-practices', split: 'train', cap: 1500, fn: docSource({ repo: 'google/eng-practices', include: MD }) },
  { slug: 'prom-runbooks', repo: 'prometheus-operator/runbooks', split: 'train', cap: 1500, fn: docSource({ repo: 'prometheus-operator/runbooks', include: /^content\/.*\.md$/, dflt: 'runbook' }) },
  { slug: 'madr', repo: 'adr/madr', split: 'train', cap: 1500, fn: docSource({ repo: 'adr/madr', include: /^(docs|template)\/.*\.md$/, dflt: 'adr' }) },
  { slug: 'log4brains', repo: 'thomvaill/log4brains', split: 'train', cap: 1500, fn: docSource({ repo: 'thomvaill/log4brains', include: /^(docs\/.*\.md|packages\/[^/]+\/README\.md|CHANGELOG\.md)$/ }) },
  { slug: 'rustsec', repo: 'rustsec/advisory-db', split: 'train', cap: 1500, fn: docSource({ repo: 'rustsec/advisory-db', include: /^crates\/.*\.md$/, dflt: 'other' }) },
  { slug: 'pypa-advisories', repo: 'pypa/advisory-database', split: 'train', cap: 1500, fn: pypaAdvisories('pypa/advisory-database') },
  { slug: 'spamassassin-ham', repo: 'stdlib-js/datasets-spam-assassin', split: 'train', cap: 1500, fn: spamAssassinHam('stdlib-js/datasets-spam-assassin') },
  { slug: 'elastic-examples-logs', repo: 'elastic/examples', split: 'train', cap: 1500, fn: logSource('elastic/examples', ['Common Data Formats/apache_logs/apache_logs', 'Machine Learning/Security Analytics Recipes/suspicious_login_activity/data/auth.log', 'Common Data Formats/nginx_logs/nginx_logs', 'Machine Learning/IT Operations Recipes/service_response_change/data/apache_logs.log', 'Miscellaneous/kafka_monitoring/filebeat_monitoring/logs/kafka0/logs/controller.log']) },
  { slug: 'elastic-examples-docs', repo: 'elastic/examples', split: 'train', cap: 1500, fn: docSource({ repo: 'elastic/examples', include: MD }) },
  { slug: 'opensource-guide', repo: 'github/opensource.guide', split: 'train', cap: 1500, fn: docSource({ repo: 'github/opensource.guide', include: /^_articles\/.*\.md$/, lang: (p) => { const a = p.split('/'); return a.length > 2 ? a[1] : 'en'; } }) },
  { slug: 'free-programming-books-docs', repo: 'EbookFoundation/free-programming-books', split: 'train', cap: 1500, fn: docSource({ repo: 'EbookFoundation/free-programming-books', include: /^docs\/.*\.md$/, lang: (p) => { const m = p.match(/-([a-z]{2,3}(?:_[A-Z]{2})?)\.md$/); return m ? m[1] : 'en'; } }) },
  { slug: 'peps', repo: 'python/peps', split: 'train', cap: 1500, fn: docSource({ repo: 'python/peps', include: /^peps\/pep-\d+\.(rst|md)$/, dflt: 'adr' }) },
  { slug: 'rust-rfcs', repo: 'rust-lang/rfcs', split: 'train', cap: 1500, fn: docSource({ repo: 'rust-lang/rfcs', include: /^text\/.*\.md$/, dflt: 'adr' }) },
  { slug: 'go-proposal', repo: 'golang/proposal', split: 'train', cap: 1500, fn: docSource({ repo: 'golang/proposal', include: /\.md$/, dflt: 'adr' }) },
  { slug: 'helm-www', repo: 'helm/helm-www', split: 'train', cap: 1500, fn: docSource({ repo: 'helm/helm-www', include: /^(docs|i18n|blog)\/.*\.mdx?$/, lang: (p) => p.startsWith('i18n/') ? p.split('/')[1] : 'en' }) },
  { slug: 'homebrew', repo: 'Homebrew/brew', split: 'train', cap: 1500, fn: docSource({ repo: 'Homebrew/brew', include: /^docs\/.*\.md$/ }) },
  { slug: 'pydantic', repo: 'pydantic/pydantic', split: 'train', cap: 1500, fn: docSource({ repo: 'pydantic/pydantic', include: /^(docs\/.*\.md|HISTORY\.md)$/ }) },
  { slug: 'argo-cd', repo: 'argoproj/argo-cd', split: 'train', cap: 1500, fn: docSource({ repo: 'argoproj/argo-cd', include: /^docs\/.*\.md$/, kind: (p) => /proposals\//.test(p) ? 'adr' : /faq/i.test(p) ? 'faq' : kindOf(p) }) },
  ...configSource(['vuejs/docs', 'vitejs/vite', 'nuxt/nuxt', 'eslint/eslint', 'kubernetes/community', 'prometheus/docs', 'withastro/docs', 'rust-lang/cargo', 'sveltejs/svelte', 'elastic/examples', 'prometheus-operator/runbooks', 'nodejs/nodejs.org', 'argoproj/argo-cd', 'helm/helm-www', 'Homebrew/brew', 'pydantic/pydantic']),
];

// ---------- main ----------
const only = process.argv[2] ? new Set(process.argv[2].split(',')) : null;
const seen = new Set(); const summary = [];
if (!only) fs.writeFileSync(OUT, '');
else if (fs.existsSync(OUT)) { for (const l of fs.readFileSync(OUT, 'utf8').split('\n')) if (l) seen.add(createHash('sha1').update(JSON.parse(l).text).digest('hex')); }
const licenses = JSON.parse(fs.readFileSync(new URL('./licenses.json', import.meta.url), 'utf8'));
for (const s of SOURCES) {
  if (only && !only.has(s.slug)) continue;
  const t0 = Date.now(); let items;
  try { items = s.fn(); } catch (err) { console.error(`FAIL ${s.slug}: ${err.message.slice(0, 200)}`); summary.push({ slug: s.slug, repo: s.repo, error: err.message.slice(0, 200) }); continue; }
  const uniq = [];
  for (const it of items) { const h = createHash('sha1').update(it.text).digest('hex'); if (seen.has(h)) continue; seen.add(h); uniq.push(it); }
  const picked = sample(uniq, s.cap);
  const lines = picked.map((it, n) => JSON.stringify({ id: `rt-${s.slug}-${n}`, text: it.text, source: s.repo, path: it.path, kind: it.kind, lang: it.lang, license: licenses[s.repo] || 'UNKNOWN', split: s.split }));
  fs.appendFileSync(OUT, lines.length ? lines.join('\n') + '\n' : '');
  const by = (k) => picked.reduce((a, it) => ((a[it[k]] = (a[it[k]] || 0) + 1), a), {});
  summary.push({ slug: s.slug, repo: s.repo, commit: head(s.repo), license: licenses[s.repo], split: s.split, extracted: items.length, count: picked.length, kinds: by('kind'), langs: by('lang') });
  console.log(`${s.slug}: ${items.length} -> ${picked.length} (${Date.now() - t0}ms)`);
}
let prev = []; if (only && fs.existsSync(SRC_OUT)) prev = JSON.parse(fs.readFileSync(SRC_OUT, 'utf8')).filter((x) => !only.has(x.slug));
fs.writeFileSync(SRC_OUT, JSON.stringify(prev.concat(summary), null, 1));
