/**
 * The `@knowledge` chat participant. The first message of a conversation creates a session (the "pin to next
 * chat" draft passes into it); its key rides in `ChatResult.metadata` and is recovered from the history on
 * later turns. Each message carries the knowledge block as its own part when the session is owed it; when
 * the prompt would pass a share of the model's input budget, older turns are summarised (compaction) and
 * the block is re-sent with the pinned messages in one message.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  CreateSessionRequest,
  GetSessionRequest,
  NotifyCompactedRequest,
  ResolvePendingRequest,
  SetPinnedMessagesRequest,
  UpdateSessionPinsRequest,
} from '../../shared/protocol';
import type { PendingBlock, SessionInfo } from '../../shared/schemas';
import { blockBudget, resolveBlockSafely, sendAndRecord, userMessageWithBlock } from './knowledgeSend';
import { PARTICIPANT_ID, compactionMessage, messageText, ourTurns, rebuildConversation, sessionKeyOf, turnMessages, type KnowledgeResultMetadata, type Turn } from './history';

export interface ParticipantDeps {
  client: LanguageClient;
  log: vscode.LogOutputChannel;
  /** Told which session the person is talking in (status bar, `knowledge_context` tool). */
  onActiveSession: (key: string) => void;
}

type Handler = (request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken) => Promise<vscode.ChatResult>;

const shortSig = (s: string) => (s ? `${s.slice(0, 12)}…` : '(none)');

function errorMessage(err: unknown): string {
  return (err as Error)?.message ?? String(err);
}

/** Paths named in a /pin or /unpin: chat references (#file) first, then words of the prompt. */
function pinArguments(request: vscode.ChatRequest): string[] {
  const out: string[] = [];
  for (const ref of request.references ?? []) {
    const v = ref.value;
    if (v instanceof vscode.Uri) out.push(v.fsPath);
    else if (v instanceof vscode.Location) out.push(v.uri.fsPath);
  }
  // Words that are not chat-variable references (#file:…) already covered above.
  for (const word of request.prompt.split(/\s+/)) if (word && !word.startsWith('#')) out.push(word);
  return out;
}

export function createChatHandler(deps: ParticipantDeps): Handler {
  const { client, log } = deps;

  async function ensureSession(history: readonly unknown[]): Promise<string | undefined> {
    const existing = sessionKeyOf(history);
    if (existing) return existing;
    try {
      const created = await client.sendRequest(CreateSessionRequest.type, { consumeDraft: true, origin: 'chat' });
      return created.key;
    } catch (err) {
      log.warn(`Could not create a session: ${errorMessage(err)}`);
      return undefined;
    }
  }

  async function session(key: string): Promise<SessionInfo> {
    return client.sendRequest(GetSessionRequest.type, { key });
  }

  function describePins(pins: readonly string[]): string {
    return pins.length === 0 ? 'No pins yet. Pin a file with `/pin path/to/file.md`, or from the Session Knowledge view.' : pins.map((p) => `- \`${p}\``).join('\n');
  }

  async function commandPin(key: string, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, add: boolean): Promise<void> {
    const args = pinArguments(request);
    if (args.length === 0) {
      stream.markdown(add ? 'Name a file to pin, e.g. `/pin .knowledge/notes/setup.md` or `/pin #file:README.md`.' : 'Name a pinned file to unpin. `/pins` lists them.');
      return;
    }
    try {
      const info = await client.sendRequest(UpdateSessionPinsRequest.type, add ? { key, add: args } : { key, remove: args });
      stream.markdown(`${add ? 'Pinned' : 'Unpinned'}. This session's pins:\n\n${describePins(info.pins)}\n\nThe next message sends what changed.`);
    } catch (err) {
      stream.markdown(`Nothing changed: ${errorMessage(err)}`);
    }
  }

  async function commandStatus(key: string, stream: vscode.ChatResponseStream): Promise<void> {
    const info = await session(key);
    let pending: PendingBlock | undefined;
    try {
      pending = await client.sendRequest(ResolvePendingRequest.type, { key, budgetTokens: blockBudget() });
    } catch (err) {
      stream.markdown(`The pending block could not be built: ${errorMessage(err)}\n\n`);
    }
    const state = !info.delivered ? 'never delivered' : pending && pending.text === '' ? 'carrying the current knowledge' : 're-send pending (something changed since the last delivery)';
    const lines = [
      `**Session** \`${info.key}\` — ${state}`,
      '',
      `- Delivered signature: \`${shortSig(info.delivered)}\`${info.deliveredAt ? ` at ${info.deliveredAt}` : ''}`,
      `- Pending signature: \`${shortSig(pending?.signature ?? '')}\``,
      pending ? `- Budget: ${pending.budget.usedTokens} of ${pending.budget.budgetTokens} tokens${pending.budget.cutItems.length > 0 ? `; cut: ${pending.budget.cutItems.join(', ')}` : ''}` : '',
      '',
      '**Pins**',
      describePins(info.pins),
      ...(pending?.items.filter((i) => i.state !== 'ok').map((i) => `- ⚠ \`${i.id}\` ${i.state}: ${i.reason ?? ''}`) ?? []),
      ...(info.pinnedMessages.length > 0 ? ['', '**Pinned messages**', ...info.pinnedMessages.map((m) => `- ${m}`)] : []),
    ];
    stream.markdown(lines.filter((l) => l !== undefined).join('\n'));
    if (pending && pending.text) {
      stream.markdown('\n\n**Pending block** (sent with your next message):\n\n');
      stream.markdown(new vscode.MarkdownString().appendCodeblock(pending.text, 'text'));
    }
  }

  async function commandPinMessage(key: string, request: vscode.ChatRequest, turns: readonly Turn[], stream: vscode.ChatResponseStream): Promise<void> {
    const text = request.prompt.trim() || turns[turns.length - 1]?.prompt.trim() || '';
    if (!text) {
      stream.markdown('Write the message to pin after `/pinmessage`, or use it right after the message you want to keep.');
      return;
    }
    const info = await session(key);
    const updated = await client.sendRequest(SetPinnedMessagesRequest.type, { key, messages: [...info.pinnedMessages.filter((m) => m !== text), text].slice(-50) });
    stream.markdown(`Pinned this message; it survives compaction (${updated.pinnedMessages.length} pinned).`);
  }

  /** Summarises older turns when the conversation would pass the configured share of the model's input. */
  async function maybeCompact(
    model: vscode.LanguageModelChat,
    key: string,
    turns: readonly Turn[],
    conversation: vscode.LanguageModelChatMessage[],
    firstLiveTurn: number,
    prompt: string,
    token: vscode.CancellationToken,
  ): Promise<{ data: NonNullable<KnowledgeResultMetadata['compaction']>; signature: string } | undefined> {
    const share = vscode.workspace.getConfiguration('sessionKnowledge').get<number>('compactionThreshold', 0.6);
    const keepTurns = 2;
    if (turns.length - firstLiveTurn <= keepTurns) return undefined;
    const allText = [...conversation.map(messageText), prompt].join('\n');
    let tokens: number;
    try {
      tokens = await model.countTokens(allText, token);
    } catch {
      tokens = Math.ceil(allText.length / 4);
    }
    if (tokens <= share * model.maxInputTokens) return undefined;

    const covered = turns.length - keepTurns;
    const transcript = conversation
      .slice(0, conversation.length - keepTurns * 2)
      .map((m) => `${m.role === vscode.LanguageModelChatMessageRole.User ? 'User' : 'Assistant'}: ${messageText(m)}`)
      .join('\n\n');
    const request = vscode.LanguageModelChatMessage.User(
      'Summarise this conversation between a developer and an assistant so the assistant can continue it. Keep decisions, open questions, ' +
        'names of files and commands. Leave out the pinned project knowledge blocks: they are re-sent separately.\n\n' + transcript,
    );
    let summary = '';
    try {
      const response = await model.sendRequest([request], {}, token);
      for await (const fragment of response.text) summary += fragment;
    } catch (err) {
      log.warn(`Compaction failed; sending without it: ${errorMessage(err)}`);
      return undefined;
    }
    if (!summary.trim()) return undefined;
    let block = '';
    let signature = '';
    try {
      const compacted = await client.sendRequest(NotifyCompactedRequest.type, { key, budgetTokens: blockBudget() });
      block = compacted.text;
      signature = compacted.signature;
    } catch (err) {
      log.warn(`No knowledge block with the compaction this time: ${errorMessage(err)}`);
    }
    let pinnedMessages: string[] = [];
    try {
      pinnedMessages = (await session(key)).pinnedMessages;
    } catch {
      /* none this time */
    }
    return { data: { summary: summary.trim(), coveredTurns: covered, block, pinnedMessages }, signature };
  }

  return async (request, context, stream, token) => {
    const key = await ensureSession(context.history);
    if (key) deps.onActiveSession(key);
    const metadata: KnowledgeResultMetadata = { sessionKey: key };
    const turns = ourTurns(context.history);

    if (request.command && !key) {
      stream.markdown('The Session Knowledge server is not available right now; see the Session Knowledge output.');
      return { metadata };
    }
    try {
      switch (request.command) {
        case 'pin':
          await commandPin(key!, request, stream, true);
          return { metadata };
        case 'unpin':
          await commandPin(key!, request, stream, false);
          return { metadata };
        case 'pins':
          stream.markdown(`This session's pins:\n\n${describePins((await session(key!)).pins)}`);
          return { metadata };
        case 'status':
          await commandStatus(key!, stream);
          return { metadata };
        case 'pinmessage':
          await commandPinMessage(key!, request, turns, stream);
          return { metadata };
      }
    } catch (err) {
      stream.markdown(`That did not work: ${errorMessage(err)}`);
      return { metadata, errorDetails: { message: errorMessage(err) } };
    }

    const model = request.model as vscode.LanguageModelChat | undefined;
    if (!model) {
      stream.markdown('Conversation needs a language model, and none is available. The commands still work: `/pins`, `/pin`, `/unpin`, `/status`, `/pinmessage`.');
      return { metadata };
    }

    const { messages: conversation, firstLiveTurn } = rebuildConversation(turns);
    const compaction = key ? await maybeCompact(model, key, turns, conversation, firstLiveTurn, request.prompt, token) : undefined;
    let messages: vscode.LanguageModelChatMessage[];
    let pending: { sessionKey: string; signature: string } | undefined;
    let sentBlock: PendingBlock | undefined;
    if (compaction) {
      metadata.compaction = compaction.data;
      messages = [compactionMessage(compaction.data), ...turns.slice(compaction.data.coveredTurns).flatMap(turnMessages), vscode.LanguageModelChatMessage.User(request.prompt)];
      if (compaction.data.block && key) pending = { sessionKey: key, signature: compaction.signature };
    } else {
      sentBlock = await resolveBlockSafely(client, key, log, model);
      const block = sentBlock?.text ?? '';
      messages = [...conversation, userMessageWithBlock(block, request.prompt)];
      if (block && key && sentBlock) {
        pending = { sessionKey: key, signature: sentBlock.signature };
        metadata.block = block;
        metadata.signature = sentBlock.signature;
      }
    }

    const outcome = await sendAndRecord(client, model, messages, token, pending, log, (fragment) => stream.markdown(fragment));
    if (outcome.error) {
      delete metadata.block;
      delete metadata.compaction;
      const message = outcome.error instanceof vscode.LanguageModelError ? `The language model could not answer (${outcome.error.code}): ${outcome.error.message}` : `The request failed: ${outcome.error.message}`;
      log.warn(message);
      if (!outcome.accepted) return { metadata, errorDetails: { message } };
    }
    if (!outcome.accepted) {
      // Cancelled before the model answered: nothing was delivered.
      delete metadata.block;
      delete metadata.compaction;
      return { metadata };
    }
    const footer = compaction
      ? `\n\n---\n*Session knowledge: the conversation was compacted; the pinned knowledge${compaction.data.pinnedMessages.length ? ' and pinned messages were' : ' was'} re-sent with it.*`
      : sentBlock && sentBlock.text
        ? `\n\n---\n*Session knowledge: sent ${sentBlock.items.filter((i) => i.state === 'ok').length} pinned item(s) with this message${sentBlock.items.some((i) => i.state !== 'ok') ? `; ${sentBlock.items.filter((i) => i.state !== 'ok').length} withheld or unavailable` : ''}${sentBlock.budget.cutItems.length ? `; cut to fit: ${sentBlock.budget.cutItems.join(', ')}` : ''}.*`
        : '';
    if (footer) stream.markdown(footer);
    if (sentBlock?.text) {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      if (folder) for (const item of sentBlock.items.filter((i) => i.state === 'ok')) stream.reference(vscode.Uri.joinPath(folder, item.id));
    }
    return { metadata };
  };
}

export function registerParticipant(context: vscode.ExtensionContext, deps: ParticipantDeps): Handler {
  const handler = createChatHandler(deps);
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, handler);
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'knowledge.svg');
  context.subscriptions.push(participant);
  return handler;
}
