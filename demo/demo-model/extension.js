// Development only (`npm start`; never in the .vsix): an offline demo model that answers by showing what it
// received — the knowledge block as it arrived, the withheld notices, the token count — so a person without
// a chat model can watch `@knowledge` deliver pinned knowledge once, and again after an edit or a compaction.
// It answers distillation prompts with one deterministic "Demo:" proposal (distillAnswer), so memory can be tried.
// It also contributes the default chat participants that make VS Code's Chat view appear in the web build.
// Uses the proposed chatProvider and defaultChatParticipant APIs (code-server runs with
// --enable-proposed-api for this extension); the product itself uses none.
/* global require, exports */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS extension, loaded as is (no build)
const vscode = require('vscode');

const MODEL_NAME = 'Demo model (offline) — shows what it received';
const BLOCK_START = /^<knowledge-untrusted\b/;
const SUMMARY_REQUEST = 'Summarise this conversation';
/** How the attachments' envelope starts its inside (src/extension/chat/attachedContext.ts). */
const ATTACHED = 'Files, selections and text the user attached to this message';
const MAX_INPUT = 8000;

const tokens = (text) => Math.ceil(text.length / 4);
const textOf = (message) => (message.content || []).map((p) => (typeof p.value === 'string' ? p.value : '')).filter(Boolean);
const isUser = (message) => message.role === vscode.LanguageModelChatMessageRole.User;
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A Markdown code fence that the text cannot close (notes may hold fences of their own). */
function fenced(text) {
  const longest = Math.max(2, ...(text.match(/`+/g) || []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

/** What the block says about itself: the pinned items it carries and its bracketed notices (withheld, unavailable, cut). */
function describeBlock(block) {
  const items = [...block.matchAll(/^--- Pinned (note|plan|file): (.+?) ---$/gm)].map((m) => `${m[1]} \`${m[2]}\``);
  // The envelope's own nonce line is not a notice about an item.
  const notices = block.split('\n').filter((line) => /^\[.*\]$/.test(line.trim()) && !/^\[Envelope nonce /.test(line.trim()));
  return { items, notices };
}

/** The attachments' envelope: what it carries, and its notices (withheld, cut). */
function describeAttachments(part) {
  const items = [...part.matchAll(/^--- Attached (file|selection|text): (.+?) ---$/gm)].map((m) => `${m[1]} \`${m[2]}\``);
  const notices = part.split('\n').filter((line) => /^\[(Withheld|Cut to fit)/.test(line.trim()));
  return { items, notices };
}

function answer(messages, options) {
  const all = messages.map(textOf);
  const total = tokens(all.flat().join('\n'));
  const last = messages[messages.length - 1];
  const lastParts = textOf(last);
  const attached = lastParts.find((p) => BLOCK_START.test(p) && p.includes(ATTACHED));
  const block = lastParts.find((p) => BLOCK_START.test(p) && p !== attached);
  const compaction = lastParts.find((p) => p.startsWith('Summary of the earlier conversation'));
  const prompt = lastParts.filter((p) => p !== block && p !== compaction && p !== attached).join(' ');
  const tools = (options?.tools || []).map((t) => `\`${t.name}\``);
  const earlier = messages.slice(0, -1);
  const earlierBlocks = earlier.filter((m) => isUser(m) && textOf(m).some((p) => BLOCK_START.test(p))).length;
  const earlierCompaction = earlier.some((m) => textOf(m).some((p) => p.startsWith('Summary of the earlier conversation')));

  const lines = [`*${MODEL_NAME}. Not a real model: it does not answer your question, it shows what @knowledge sent it.*`, ''];
  lines.push(`- **Your message:** ${prompt ? `“${prompt.length > 200 ? `${prompt.slice(0, 200)}…` : prompt}”` : '(none)'}`);
  if (block) {
    const { items, notices } = describeBlock(block);
    lines.push(`- **Knowledge block with this message:** yes, ${tokens(block)} tokens${compaction ? ', re-sent after compaction together with the summary and your pinned messages' : ''} — ${items.length ? items.join(', ') : 'no pinned item in full'}.`);
    lines.push(`- **Withheld or unavailable:** ${notices.length ? notices.map((n) => `\`${n.trim()}\``).join(' ') : 'nothing'}.`);
  } else {
    lines.push(`- **Knowledge block with this message:** none — ${earlierBlocks || earlierCompaction ? 'the conversation already carries it (it rides in the history, with the earlier message it was delivered with)' : 'nothing is pinned to this chat yet (pin a note, or use `/pin path`)'}.`);
  }
  if (attached) {
    const a = describeAttachments(attached);
    lines.push(`- **Attached with this message** (an envelope of its own, not pinned knowledge): ${a.items.length ? a.items.join(', ') : 'nothing'}${a.notices.length ? ` — ${a.notices.map((n) => `\`${n.trim()}\``).join(' ')}` : ''}.`);
  } else lines.push('- **Attached with this message:** nothing.');
  lines.push(`- **Tools offered:** ${tools.length ? tools.join(', ') : 'none'}${options?.toolMode === 2 ? ' (one required: you referenced it with #)' : ''}.`);
  lines.push(`- **History replayed:** ${plural(earlier.length, 'earlier message')}${earlierBlocks ? `, ${plural(earlierBlocks, 'of them carries', 'of them carry')} a knowledge block` : ''}${earlierCompaction ? '; older turns were compacted into a summary' : ''}.`);
  lines.push(`- **Tokens received:** ${total} of this demo model's ${MAX_INPUT} (it counts characters ÷ 4; @knowledge compacts the conversation past the share set in \`sessionKnowledge.compactionThreshold\`).`);
  if (block) lines.push('', 'The block as it arrived:', '', fenced(block));
  return lines.join('\n');
}

/**
 * Distillation prompts (`@knowledge /distill`, "Distil This Session into Memory…"; see src/extension/memory/distillPrompt.ts):
 * a DETERMINISTIC proposal drawn from the conversation, so the memory inbox, approve, reject and the diff can be tried
 * offline. One project fact from the first user turn the prompt holds, marked as the demo's ("Demo:" title, a body
 * line saying the demo model wrote it); its body counts the turns, so distilling the same chat again after more turns
 * proposes an update of it, with a diff. Answers undefined for any other prompt.
 */
const DISTILL_START = 'You are distilling a conversation';
function distillAnswer(messages) {
  const prompt = textOf(messages[0] || { content: [] }).join('\n');
  if (!prompt.startsWith(DISTILL_START)) return undefined;
  const turns = Number((/--- Conversation \((\d+) turns?\) ---/.exec(prompt) || [])[1] || 0);
  const first = /^Turn (\d+) — User:\n([\s\S]*?)\n\nTurn \1 — Assistant:/m.exec(prompt);
  if (!first) return '[]';
  const turn = Number(first[1]);
  const words = first[2].replace(/\s+/g, ' ').trim() || '(an empty message)';
  const short = (text, max) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
  return JSON.stringify([{
    type: 'fact',
    title: short(`Demo: ${words}`, 80),
    body: [
      'Written by the demo model (offline): it does not understand the conversation, it proposes the first thing the person said as a project fact, so the memory inbox can be tried.',
      `Turn ${turn} said: “${short(words, 1200)}”`,
      `The conversation had ${plural(turns, 'turn')} when it was distilled.`,
    ].join('\n'),
    tags: ['demo'],
    importance: 'low',
    rationale: short(`Turn ${turn}: "${words}"`, 500),
    turn,
  }]);
}

exports.activate = (context) => {
  // The Chat view appears only when a default participant exists; VS Code enables New Chat only with an edit-mode one.
  for (const id of ['sessionknowledge-demo.chat', 'sessionknowledge-demo.edit']) {
    context.subscriptions.push(vscode.chat.createChatParticipant(id, async (_request, _context, stream) => {
      stream.markdown('This is the demo chat of Session Knowledge. Start your message with `@knowledge` — for example `@knowledge how do we handle money?` — and the demo model shows what it received.');
      return {};
    }));
  }
  context.subscriptions.push(vscode.lm.registerChatModelProvider('sk-demo-model', {
    async provideLanguageModelResponse(messages, options, _extensionId, progress) {
      const first = textOf(messages[0])[0] || '';
      const reply = messages.length === 1 && first.startsWith(SUMMARY_REQUEST)
        ? '(Demo summary: this demo model does not summarise; a real model would condense the earlier turns here.)'
        : distillAnswer(messages) ?? answer(messages, options);
      progress.report({ index: 0, part: new vscode.LanguageModelTextPart(reply) });
    },
    async provideTokenCount(text) {
      return tokens(typeof text === 'string' ? text : textOf(text).join('\n'));
    },
  }, {
    vendor: 'sk-demo', name: MODEL_NAME, family: 'sk-demo', version: '1', maxInputTokens: MAX_INPUT, maxOutputTokens: 4000,
    isUserSelectable: true, isDefault: true,
  }));
};
