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
  DeleteSessionRequest,
  GetSessionRequest,
  NameSessionRequest,
  NotifyCompactedRequest,
  ResolvePendingRequest,
  SetPinnedMessagesRequest,
  UpdateDraftPinsRequest,
  UpdateSessionPinsRequest,
} from '../../shared/protocol';
import type { PendingBlock, SessionInfo } from '../../shared/sessionSchemas';
import { nameFromPrompt } from '../../shared/sessionNames';
import { blockBudget, requestWithTimeout, resolveBlockSafely, sendAndRecord, userMessageWithBlock, type PendingDelivery } from './knowledgeSend';
import { judgeLiveTurns, judgeNewCompaction } from './replayJudge';
import {
  FOOTER_START,
  PARTICIPANT_ID,
  compactionMessage,
  conversationTurns,
  distillTurns,
  messageText,
  ourTurns,
  rebuildConversation,
  sessionKeyOf,
  turnMessages,
  type KnowledgeResultMetadata,
  type Turn,
} from './history';
import type { ChatDistillHooks } from '../memory/distillCommands';
import { RESTRICTED_CHAT_NOTE, RESTRICTED_NOTICE, deliveryAllowed } from '../workspaceTrust';
import { fitAttachments, readAttachments, type Attachments } from './attachments';
import { modelErrorSentence, toolPlan } from './toolLoop';
import { STATE_SENTENCE, compactedFooter, deliveredFooter, itemMark, stateOf } from '../statusWords';

export interface ParticipantDeps {
  client: LanguageClient;
  log: vscode.LogOutputChannel;
  /** Told which session the person is talking in (status bar, `knowledge_context` tool). */
  onActiveSession: (key: string) => void;
  /** Distillation (`/distill`, the transcript kept in memory, distil on compaction); only with the memory flag. */
  distill?: () => ChatDistillHooks | undefined;
  /** The file a pinned id names (ids start with their folder's name when the workspace has several). */
  uriOf?: (id: string) => vscode.Uri | undefined;
  /** Whether memory is on (its tools are offered to the model); only with the memory flag. */
  memoryOn?: () => boolean;
}

type Handler = (request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken) => Promise<vscode.ChatResult>;

const shortSig = (s: string) => (s ? `${s.slice(0, 12)}…` : '(none)');

function errorMessage(err: unknown): string {
  return (err as Error)?.message ?? String(err);
}

/**
 * Paths named in a /pin or /unpin: chat references (#file) first, then words of the prompt. The file VS Code
 * attaches by itself (the "Current file" context, id `vscode.implicit…`) is not something the person named.
 */
function pinArguments(request: vscode.ChatRequest): string[] {
  const out: string[] = [];
  for (const ref of request.references ?? []) {
    if (ref.id.startsWith('vscode.implicit')) continue;
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

  /**
   * The session of this conversation; the first message creates it (the draft passes into it), named after its
   * prompt. A conversation that opened with a command is named by its first prompt (VS Code 1.100's API gives a
   * participant no chat title: `ChatContext` carries only the history).
   */
  async function ensureSession(history: readonly vscode.ChatContext['history'][number][], request: vscode.ChatRequest): Promise<{ key?: string; created: boolean }> {
    const name = request.command ? undefined : nameFromPrompt(request.prompt);
    const existing = sessionKeyOf(history);
    if (existing) {
      if (name && conversationTurns(ourTurns(history)).length === 0) {
        void requestWithTimeout(client, NameSessionRequest.type, { key: existing, name }).then(undefined, (err: unknown) => log.warn(`Could not name the session ${existing}: ${errorMessage(err)}`));
      }
      return { key: existing, created: false };
    }
    try {
      const created = await requestWithTimeout(client, CreateSessionRequest.type, { consumeDraft: true, origin: 'chat', ...(name ? { label: name } : {}) });
      return { key: created.key, created: true };
    } catch (err) {
      log.warn(`Could not create a session: ${errorMessage(err)}`);
      return { created: false };
    }
  }

  /**
   * A cancelled first message: VS Code forgets the turn's result, so the session key it carried is lost and the
   * next message would start another session. The pins go back to the next-chat draft and the session goes.
   */
  async function giveBack(key: string): Promise<void> {
    try {
      const { pins } = await session(key);
      if (pins.length > 0) await client.sendRequest(UpdateDraftPinsRequest.type, { add: pins });
      await client.sendRequest(DeleteSessionRequest.type, { key });
    } catch (err) {
      log.warn(`Could not give the pins of the cancelled session ${key} back to the next chat: ${errorMessage(err)}`);
    }
  }

  async function session(key: string): Promise<SessionInfo> {
    return requestWithTimeout(client, GetSessionRequest.type, { key });
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
    const state = stateOf({ session: info, pins: info.pins, sendsBlock: pending ? pending.text !== '' : !info.delivered });
    const lines = [
      `**Session** \`${info.key}\` — ${state}: ${STATE_SENTENCE[state]}`,
      '',
      `- Delivered signature: \`${shortSig(info.delivered)}\`${info.deliveredAt ? ` at ${info.deliveredAt}` : ''}`,
      `- Pending signature: \`${shortSig(pending?.signature ?? '')}\``,
      pending ? `- Budget: ${pending.budget.usedTokens} of ${pending.budget.budgetTokens} tokens${pending.budget.cutItems.length > 0 ? `; cut: ${pending.budget.cutItems.join(', ')}` : ''}` : '',
      '',
      '**Pins**',
      describePins(info.pins),
      ...(pending?.items.filter((i) => i.state !== 'ok').map((i) => `- ⚠ \`${i.id}\` ${itemMark(pending, i.id).text}`) ?? []),
      ...(info.pinnedMessages.length > 0 ? ['', '**Pinned messages**', ...info.pinnedMessages.map((m) => `- ${m}`)] : []),
    ];
    stream.markdown(lines.filter((l) => l !== undefined).join('\n'));
    if (!deliveryAllowed()) stream.markdown(`\n\n${RESTRICTED_NOTICE}`);
    if (pending && pending.text) {
      stream.markdown(deliveryAllowed() ? '\n\n**Pending block** (sent with your next message):\n\n' : '\n\n**Pending block** (sent once the folder is trusted):\n\n');
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
    // The earlier summary (when there is one, it leads the conversation) and the turns this one covers.
    const older = [...(firstLiveTurn > 0 ? conversation.slice(0, 1) : []), ...turns.slice(firstLiveTurn, covered).flatMap(turnMessages)];
    const transcript = older
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
    // Restricted Mode: the summary goes without the knowledge block (the session stays owed it).
    if (deliveryAllowed()) {
      try {
        const compacted = await requestWithTimeout(client, NotifyCompactedRequest.type, { key, budgetTokens: blockBudget() });
        block = compacted.text;
        signature = compacted.signature;
      } catch (err) {
        log.warn(`No knowledge block with the compaction this time: ${errorMessage(err)}`);
      }
    }
    let pinnedMessages: string[] = [];
    try {
      pinnedMessages = (await session(key)).pinnedMessages;
    } catch {
      /* none this time */
    }
    return { data: { summary: summary.trim(), coveredTurns: covered, block, pinnedMessages }, signature };
  }

  /** Answers a slash command. Its turn is marked in the metadata and never replayed to the model. */
  async function runCommand(command: string, key: string, request: vscode.ChatRequest, turns: readonly Turn[], stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<boolean> {
    switch (command) {
      case 'distill': {
        const distill = deps.distill?.();
        if (!distill) return false;
        await distill.command(key, distillTurns(turns), request.model as vscode.LanguageModelChat | undefined, stream, token);
        return true;
      }
      case 'pin':
        await commandPin(key, request, stream, true);
        return true;
      case 'unpin':
        await commandPin(key, request, stream, false);
        return true;
      case 'pins':
        stream.markdown(`This session's pins:\n\n${describePins((await session(key)).pins)}`);
        return true;
      case 'status':
        await commandStatus(key, stream);
        return true;
      case 'pinmessage':
        await commandPinMessage(key, request, turns, stream);
        return true;
      default:
        return false;
    }
  }

  /** One turn in session `key` (undefined: the server is unavailable; the message goes without knowledge). */
  async function respond(key: string | undefined, request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const metadata: KnowledgeResultMetadata = { sessionKey: key };
    // What the model saw before: no command turns, no failed sends.
    const turns = conversationTurns(ourTurns(context.history));

    if (request.command) {
      const commandMetadata: KnowledgeResultMetadata = { ...metadata, command: request.command };
      if (!key) {
        stream.markdown('The Session Knowledge server is not available right now; see the Session Knowledge output.');
        return { metadata: commandMetadata };
      }
      try {
        if (await runCommand(request.command, key, request, turns, stream, token)) return { metadata: commandMetadata };
      } catch (err) {
        stream.markdown(`That did not work: ${errorMessage(err)}`);
        return { metadata: commandMetadata, errorDetails: { message: errorMessage(err) } };
      }
    }

    if (request.prompt.trim() === '') {
      stream.markdown('Write your message after `@knowledge`. The commands: `/pins`, `/pin`, `/unpin`, `/status`, `/pinmessage`.');
      return { metadata };
    }

    const model = request.model as vscode.LanguageModelChat | undefined;
    if (!model) {
      stream.markdown('Conversation needs a language model, and none is available. The commands still work: `/pins`, `/pin`, `/unpin`, `/status`, `/pinmessage`.');
      return { metadata };
    }

    // Everything replayed is judged now (current rules), beside resolving the block and reading and judging what the
    // person attached: none waits on another. Restricted Mode attaches nothing (nothing from the folder reaches a model).
    const references = deliveryAllowed() ? (request.references ?? []) : [];
    const [judged, resolved, read] = await Promise.all([judgeLiveTurns(client, turns, log), resolveBlockSafely(client, key, log, model), readAttachments(client, references, log)]);
    // A file pinned to this session is not attached again: the block carries it.
    const attachments: Attachments = await fitAttachments(read, new Set(resolved?.items.map((i) => i.id) ?? []), model);
    if (attachments.items.length > 0) metadata.attachments = attachments.items;
    const { messages: conversation, firstLiveTurn } = rebuildConversation(judged);
    const compaction = key ? await maybeCompact(model, key, judged, conversation, firstLiveTurn, [attachments.envelope, request.prompt].join('\n'), token) : undefined;
    let messages: vscode.LanguageModelChatMessage[];
    let pending: PendingDelivery | undefined;
    let sentBlock: PendingBlock | undefined;
    if (compaction) {
      metadata.compaction = compaction.data;
      const sent = await judgeNewCompaction(client, compaction.data, log);
      messages = [compactionMessage(sent), ...judged.slice(compaction.data.coveredTurns).flatMap(turnMessages), userMessageWithBlock('', request.prompt, attachments.envelope)];
      if (compaction.data.block && key) pending = { sessionKey: key, signature: compaction.signature, whenComplete: true };
    } else {
      sentBlock = resolved;
      const block = sentBlock?.text ?? '';
      messages = [...conversation, userMessageWithBlock(block, request.prompt, attachments.envelope)];
      if (block && key && sentBlock) {
        pending = { sessionKey: key, signature: sentBlock.signature, whenComplete: true };
        metadata.block = block;
        metadata.signature = sentBlock.signature;
      }
    }

    // The model may call our memory tools (memory on) and the tools the person referenced or enabled (toolLoop.ts).
    const tools = toolPlan(request, deps.memoryOn?.() ?? false, (line) => stream.progress(line));
    const outcome = await sendAndRecord(client, model, messages, token, pending, log, (fragment) => stream.markdown(fragment), tools);
    if (token.isCancellationRequested) {
      // VS Code keeps no result for a cancelled turn: nothing rode with it (nothing was recorded either).
      delete metadata.block;
      delete metadata.compaction;
      delete metadata.attachments;
      return { metadata };
    }
    if (!outcome.accepted) {
      // Failed before the model answered: nothing was delivered, nothing rode with this turn.
      delete metadata.block;
      delete metadata.compaction;
      delete metadata.attachments;
      const message = modelErrorSentence(outcome.error ?? new Error('no answer'));
      log.warn(message);
      return { metadata, errorDetails: { message } };
    }
    // Failed after it started answering: the model got the block, so the turn keeps it for the replay.
    if (outcome.error) log.warn(`The answer broke off: ${modelErrorSentence(outcome.error)}`);
    const distill = deps.distill?.();
    if (key && distill) {
      const conversation = [...distillTurns(turns), { prompt: request.prompt, response: outcome.text }];
      if (compaction) distill.compacted(key, conversation, model);
      else distill.record(key, conversation, model);
    }
    const attached = attachments.summary ? `; ${attachments.summary}` : '';
    // a footer sentence with what was attached before its full stop
    const withAttached = (sentence: string): string => (attached ? `${sentence.replace(/\.$/, '')}${attached}.` : sentence);
    const footer = compaction
      ? `${FOOTER_START}${withAttached(compactedFooter(compaction.data.pinnedMessages.length))}*`
      : sentBlock && sentBlock.text
        ? `${FOOTER_START}${withAttached(deliveredFooter(sentBlock))}*`
        : attachments.summary
          ? `${FOOTER_START}${attachments.summary}.*`
          : '';
    if (footer) stream.markdown(footer);
    for (const where of attachments.sent) stream.reference(where);
    // Restricted Mode: the knowledge was held back (resolveBlockSafely), said once in this answer.
    if (!deliveryAllowed()) stream.markdown(RESTRICTED_CHAT_NOTE);
    if (sentBlock?.text) {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      const uriOf = deps.uriOf ?? ((id: string) => (folder ? vscode.Uri.joinPath(folder, id) : undefined));
      for (const item of sentBlock.items.filter((i) => i.state === 'ok')) {
        const uri = uriOf(item.id);
        if (uri) stream.reference(uri);
      }
    }
    return { metadata };
  }

  return async (request, context, stream, token) => {
    const { key, created } = await ensureSession(context.history, request);
    if (key && !created) deps.onActiveSession(key);
    const result = await respond(key, request, context, stream, token);
    if (key && created) {
      if (token.isCancellationRequested) await giveBack(key);
      else deps.onActiveSession(key);
    }
    return result;
  };
}

export function registerParticipant(context: vscode.ExtensionContext, deps: ParticipantDeps): Handler {
  const handler = createChatHandler(deps);
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, handler);
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'knowledge.svg');
  context.subscriptions.push(participant);
  return handler;
}
